// The API's fallback to the web client's worker (src/http/web-client.ts): what it forwards and what stays the
// API's JSON 404. The WEB binding is a stand-in (vitest.workers.config.ts) that has every path but /missing… and
// answers /down… as a worker that is not running.
import { describe, expect, it } from "vitest";
import { api, apiJson } from "./helpers";

type ErrorBody = { error: { code: string; message: string } };

describe("web client fallback", () => {
  it("serves / from the web client", async () => {
    const res = await api("/");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("web client: GET /");
  });

  it("answers a HEAD for a web client file from the web client", async () => {
    const res = await api("/assets/index-web-head.js", { method: "HEAD" });
    expect(res.status).toBe(200);
  });

  it("answers a path the web client lacks with the API's JSON 404", async () => {
    const res = await apiJson<ErrorBody>("/missing-web-page");
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: "not_found", message: "no route for GET /missing-web-page" });
  });

  it("never sends an unknown API path to the web client", async () => {
    const res = await apiJson<ErrorBody>("/v1/no-such-resource", {
      undocumented: "no such route: its 404 is the point",
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("never sends a POST to the web client", async () => {
    const res = await apiJson<ErrorBody>("/web-post-target", { method: "POST", json: {} });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe("no route for POST /web-post-target");
  });

  it("says so when the web client is not reachable", async () => {
    const res = await apiJson<ErrorBody>("/down-web-page");
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain("web client's worker, web/wrangler.toml, is not reachable");
  });
});
