// The mock's http tool endpoint (mock/tool-endpoint.ts) holding a call: POST /_tool?hold=H is answered only once
// POST /_tool/release?hold=H came, whether the release comes after the call or before it.
import { describe, expect, it } from "vitest";
import { mockPerFile } from "./helpers.ts";

const mock = mockPerFile();

const call = (query: string) => fetch(`${mock.url}/_tool?${query}`, { method: "POST", body: JSON.stringify({ q: 1 }) });
const release = (hold: string) => fetch(`${mock.url}/_tool/release?hold=${hold}`, { method: "POST" });
const stats = async (tag: string) => (await fetch(`${mock.url}/_tool/stats?tag=${tag}`)).json();

describe("a held tool call", () => {
  it("is answered, as an unheld one is, only once its hold is released", async () => {
    let answered = false;
    const held = call("hold=h-after&tag=t-after").then((res) => {
      answered = true;
      return res;
    });
    // The call has reached the endpoint (its stats entry is written as it arrives) and waits there.
    while ((await stats("t-after")) === null) await new Promise((r) => setTimeout(r, 5));
    expect([answered, await stats("t-after")]).toEqual([false, { written: 0, hung_up: false }]);
    expect((await release("h-after")).status).toBe(204);
    const res = await held;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { echo: unknown }).echo).toEqual({ q: 1 });
  });

  it("released before it comes goes through at once, and so does every later call on that hold", async () => {
    await release("h-before");
    for (const tag of ["t-before-1", "t-before-2"]) {
      const res = await call(`hold=h-before&tag=${tag}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { echo: unknown }).echo).toEqual({ q: 1 });
    }
  });
});
