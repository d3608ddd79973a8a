// The admin's key routes (src/http/routes/keys.ts) while D1 fails: a revoke D1 wrote but answered as failed (503,
// "may or may not have been made") is refused at once by the isolate that asked for it, as a revoke answered 200 is
// (README "The turn path"). The worker's app runs in-process (withEnv), so its key cache is the one the test sees.
import { describe, expect, it } from "vitest";
import { answerLost } from "../../d1-outage";
import { withEnv } from "../../env-app";
import { ADMIN, apiJson, uid } from "../../helpers";

describe("revoking a key while D1 fails", () => {
  it("a revoke D1 wrote before failing answers 503, and the isolate refuses the key from its next request", async () => {
    const made = await apiJson<{ id: string; key: string }>("/v1/keys", {
      method: "POST",
      key: ADMIN,
      json: { tenant: uid("t") },
    });
    const list = () => withEnv({}, "/v1/sessions", { headers: { authorization: `Bearer ${made.body.key}` } });
    // Warm: the key is in this isolate's cache, live.
    expect((await list()).status).toBe(200);
    const revoke = await withEnv(
      { DB: answerLost((query) => query.startsWith("UPDATE api_keys")) },
      `/v1/keys/${made.body.id}`,
      { method: "DELETE", headers: { authorization: `Bearer ${ADMIN}` } },
    );
    expect(revoke.status).toBe(503);
    expect((await list()).status).toBe(401);
  });
});
