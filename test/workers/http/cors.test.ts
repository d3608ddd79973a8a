// CORS for a web-view app (src/http/cors.ts, directory.ts; README "CORS"): a Capacitor/Ionic/Tauri app sends its
// own scheme's origin (`capacitor://localhost`), which the URL parser gives as "null"; once its tenant lists it, the
// app's session-token requests and their preflights are answered and readable from it, as a web page's are.
import { describe, expect, it } from "vitest";
import { withEnv } from "../env-app";
import { ADMIN, apiJson, setup, tenantKey, uid } from "../helpers";

const APP = "capacitor://localhost";

/** A session of a new tenant that lists `origins`, and a session token of it that may read it. */
async function listedSession(origins: string[]): Promise<{ session: string; token: string }> {
  const tenant = uid("cors-app");
  const put = await apiJson(`/v1/tenants/${tenant}/cors`, {
    method: "PUT",
    key: ADMIN,
    json: { allowed_origins: origins },
  });
  expect(put.status).toBe(200);
  const key = await tenantKey(tenant);
  const { agent } = await setup();
  const ses = await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key, json: { agent } });
  expect(ses.status).toBe(201);
  const minted = await apiJson<{ token: string }>(`/v1/sessions/${ses.body.id}/tokens`, {
    method: "POST",
    key,
    json: { actions: ["read"] },
  });
  expect(minted.status).toBe(201);
  return { session: ses.body.id, token: minted.body.token };
}

describe("CORS for an app's own scheme", () => {
  it("a session-token read from capacitor://localhost, which the token's tenant lists, is 200 and readable by it", async () => {
    const { session, token } = await listedSession([APP]);
    const res = await withEnv({}, `/v1/sessions/${session}`, {
      headers: { origin: APP, authorization: `Bearer ${token}`, accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(session);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("a preflight from capacitor://localhost, which a tenant lists, is answered 204 for that origin", async () => {
    const { session } = await listedSession([APP]);
    const res = await withEnv({}, `/v1/sessions/${session}`, {
      method: "OPTIONS",
      headers: {
        origin: APP,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
      undocumented: "a CORS preflight is the browser's protocol (docs/API.md), no operation of the document",
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("a session-token read from another app scheme, which the tenant does not list, is 403 origin_not_allowed", async () => {
    const { session, token } = await listedSession([APP]);
    const res = await withEnv({}, `/v1/sessions/${session}`, {
      headers: { origin: "ionic://localhost", authorization: `Bearer ${token}`, accept: "application/json" },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("origin_not_allowed");
  });
});
