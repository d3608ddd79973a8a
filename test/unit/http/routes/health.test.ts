// Service routes: /docs renders the OpenAPI document with a pinned Scalar bundle.
import { describe, expect, it } from "vitest";
import { healthRoutes } from "../../../../src/http/routes/health";

describe("GET /docs", () => {
  it("loads Scalar from a pinned version, not the CDN's moving latest", async () => {
    const html = await (await healthRoutes.request("/docs")).text();
    const scripts = [...html.matchAll(/(?:src=|from )["']([^"']+)["']/g)].map((m) => m[1]);
    expect(scripts).toEqual(["https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.71.0/dist/browser/standalone.js"]);
  });
});
