// The session-token guard (src/http/access.ts `sessionAccess`): a browser request from an origin the token's tenant
// does not allow is refused before anything is counted for it, the session's rate limit included (README "CORS").
import { describe, expect, it } from "vitest";
import { apiJson, originsKey, setup } from "../helpers";

describe("a session token's request from an origin its tenant does not allow", () => {
  it("is refused 403 without being counted: past the token's limit of such requests, one without an Origin is 200", async () => {
    const { agent } = await setup();
    const key = await originsKey(["https://app.example.com"], 2);
    const session = await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key, json: { agent } });
    expect(session.status).toBe(201);
    const path = `/v1/sessions/${session.body.id}`;
    const minted = await apiJson<{ token: string }>(`${path}/tokens`, {
      method: "POST",
      key,
      json: { actions: ["read"] },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.token;
    for (let i = 0; i < 3; i++) {
      const refused = await apiJson<{ error: { code: string } }>(path, {
        key: token,
        headers: { origin: "https://evil.example.com" },
      });
      expect([refused.status, refused.body.error.code]).toEqual([403, "origin_not_allowed"]);
    }
    expect((await apiJson(path, { key: token })).status).toBe(200);
  });
});
