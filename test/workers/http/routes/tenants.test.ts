// A tenant's CORS list (PUT /v1/tenants/{tenant}/cors, src/http/routes/tenants.ts; README "CORS", docs/API.md
// "Tenants: CORS origins"): web-view apps' own-scheme origins (Capacitor, Ionic, Tauri) can be listed; `null`,
// file pages and own-scheme origins with more than scheme://host[:port] cannot, and a refused list changes nothing.
import { describe, expect, it } from "vitest";
import { ADMIN, apiJson, uid } from "../../helpers";

type ErrorBody = { error: { code: string; message: string } };

const putCors = (tenant: string, allowed_origins: string[]) =>
  apiJson<{ allowed_origins: string[] } & ErrorBody>(`/v1/tenants/${tenant}/cors`, {
    method: "PUT",
    key: ADMIN,
    json: { allowed_origins },
  });

const listOf = async (tenant: string) =>
  (await apiJson<{ allowed_origins: string[] }>(`/v1/tenants/${tenant}/cors`, { key: ADMIN })).body.allowed_origins;

describe("a tenant's CORS list", () => {
  it("takes the origins web-view apps send: capacitor://, ionic://, tauri:// and http://tauri.localhost", async () => {
    const tenant = uid("cors-app");
    const apps = ["capacitor://localhost", "ionic://localhost", "tauri://localhost", "http://tauri.localhost"];
    const put = await putCors(tenant, apps);
    expect(put.status).toBe(200);
    expect(put.body.allowed_origins).toEqual(apps);
    expect(await listOf(tenant)).toEqual([...apps].sort());
  });

  it("refuses null, file:// and own-scheme origins with a path, query, credentials, wildcard or capitals, keeping the list", async () => {
    const tenant = uid("cors-bad");
    expect((await putCors(tenant, ["capacitor://localhost"])).status).toBe(200);
    const bad = [
      "null",
      "file://",
      "file:///index.html",
      "capacitor://localhost/",
      "capacitor://localhost/app",
      "capacitor://localhost?x=1",
      "capacitor://user@localhost",
      "capacitor://*",
      "*://localhost",
      "Capacitor://localhost",
      "capacitor:localhost",
      "http://example.localhost.com",
    ];
    for (const origin of bad) {
      const res = await putCors(tenant, ["https://app.example.com", origin]);
      expect(res.status, origin).toBe(400);
      expect(res.body.error.code, origin).toBe("invalid_request");
      expect(res.body.error.message, origin).toMatch(/^allowed_origins\.1: /);
    }
    expect(await listOf(tenant)).toEqual(["capacitor://localhost"]);
  });
});
