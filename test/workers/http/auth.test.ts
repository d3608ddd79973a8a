// The API-key guard (src/http/auth.ts `requireTenant`): a browser request from an origin the key's tenant does not
// allow is refused before anything is counted for it, the key's rate limit included (README "CORS").
import { describe, expect, it } from "vitest";
import { apiJson, originsKey } from "../helpers";

describe("an API key's request from an origin its tenant does not allow", () => {
  it("is refused 403 without being counted: past the key's limit of such requests, one without an Origin is 200", async () => {
    const key = await originsKey(["https://app.example.com"], 2);
    for (let i = 0; i < 3; i++) {
      const refused = await apiJson<{ error: { code: string } }>("/v1/sessions", {
        key,
        headers: { origin: "https://evil.example.com" },
      });
      expect([refused.status, refused.body.error.code]).toEqual([403, "origin_not_allowed"]);
    }
    expect((await apiJson("/v1/sessions", { key })).status).toBe(200);
  });
});
