// The mock's emulation of Anthropic server-side compaction (`compact_20260112`): it compacts past the trigger,
// streams the block first, and refuses requests that do not send it back as issued.
import { describe, expect, it } from "vitest";
import { anthropicHeaders, mockPerFile, parseSse, readAll, script } from "./helpers.ts";

const mock = mockPerFile();

const BETA = "compact-2026-01-12";
const EDIT = { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 50_000 } }] };
/** ~60,000 tokens of user text (4 characters each). */
const LONG = "word ".repeat(48_000);

function post(body: unknown, beta: string | null = BETA): Promise<Response> {
  const headers: Record<string, string> = { ...anthropicHeaders };
  if (beta) headers["anthropic-beta"] = beta;
  return fetch(`${mock.url}/v1/messages`, { method: "POST", headers, body: JSON.stringify(body) });
}

const body = (model: string, messages: unknown[], extra: Record<string, unknown> = { context_management: EDIT }) => ({
  model,
  max_tokens: 100,
  stream: true,
  messages,
  ...extra,
});

/** Streams a request past the trigger; returns the compaction block it opened with. */
async function compacted(model: string): Promise<{ content: string; encrypted_content: string }> {
  const res = await post(body(model, [{ role: "user", content: `first ${LONG}` }]));
  expect(res.status).toBe(200);
  const events = parseSse(await res.text()).map((e) => JSON.parse(e.data) as Record<string, unknown>);
  const blocks = events.filter((e) => e.type === "content_block_start").map((e) => e.content_block);
  expect((blocks[0] as Record<string, unknown>).type).toBe("compaction");
  expect((blocks[1] as Record<string, unknown>).type).toBe("text");
  return compactionDelta(events);
}

/** The compaction block a stream's compaction_delta carries. */
function compactionDelta(events: Array<Record<string, unknown>>): { content: string; encrypted_content: string } {
  const delta = events.find((e) => (e.delta as Record<string, unknown> | undefined)?.type === "compaction_delta");
  const d = delta?.delta as { content: string; encrypted_content: string };
  return { content: d.content, encrypted_content: d.encrypted_content };
}

describe("mock server-side compaction", () => {
  it("past the trigger the answer opens with one compaction block; below it there is none", async () => {
    const block = await compacted("cmp-trigger");
    expect(block.content).toContain("user: first");
    expect(block.encrypted_content).toMatch(/^mockcmp_/);
    const small = await post(body("cmp-small", [{ role: "user", content: "hello" }]));
    expect(await small.text()).not.toContain("compaction");
  });

  it("a later request that carries the block back is read from the block on (pairing checked there)", async () => {
    const block = await compacted("cmp-carry");
    const messages = [
      { role: "user", content: `first ${LONG}` },
      {
        role: "assistant",
        content: [
          { type: "compaction", ...block },
          { type: "tool_use", id: "toolu_1", name: "t", input: { a: 1 } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
    ];
    const res = await post(body("cmp-carry", messages, { context_management: EDIT, tools: [toolT] }));
    expect(res.status).toBe(200);
    // What precedes the block was dropped: the request is small again, so no second compaction.
    expect(await res.text()).not.toContain("compaction_delta");
  });

  it("a block whose opaque state was changed is refused", async () => {
    const block = await compacted("cmp-tamper");
    const res = await post(
      body("cmp-tamper", [
        { role: "user", content: "x" },
        { role: "assistant", content: [{ type: "compaction", ...block, encrypted_content: "forged" }] },
        { role: "user", content: "next" },
      ]),
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("encrypted_content");
  });

  it("a request that asks for compaction but drops the issued block is refused", async () => {
    await compacted("cmp-dropped");
    const res = await post(body("cmp-dropped", [{ role: "user", content: "next, without the block" }]));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("no compaction block this model was given was sent back");
  });

  it("takes back a block handed over in an answer cut after it, in place of the one before it", async () => {
    const first = await compacted("cmp-cut");
    // The next answer compacts again and is cut right after its block (message_start, start, ping, delta, stop).
    await script(mock.url, "cmp-cut", [{ reply: { text: "never whole" }, faults: { cut_after_events: 5 } }]);
    const cut = await post(
      body("cmp-cut", [
        { role: "user", content: "x" },
        { role: "assistant", content: [{ type: "compaction", ...first }] },
        { role: "user", content: `second ${LONG}` },
      ]),
    );
    const text = new TextDecoder().decode((await readAll(cut)).bytes);
    const second = compactionDelta(parseSse(text).map((e) => JSON.parse(e.data) as Record<string, unknown>));
    expect(second.encrypted_content).not.toBe(first.encrypted_content);
    const res = await post(
      body("cmp-cut", [
        { role: "user", content: "x" },
        { role: "assistant", content: [{ type: "compaction", ...second }] },
        { role: "user", content: "next" },
      ]),
    );
    expect(res.status).toBe(200);
  });

  it("a tool_result whose tool_use precedes the block is unpaired once the block drops it", async () => {
    const block = await compacted("cmp-pairing");
    const res = await post(
      body(
        "cmp-pairing",
        [
          { role: "user", content: "x" },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_9", name: "t", input: {} },
              { type: "compaction", ...block },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }] },
        ],
        { context_management: EDIT, tools: [toolT] },
      ),
    );
    expect(res.status).toBe(400);
    const stats = (await (await fetch(`${mock.url}/_mock/stats?model=cmp-pairing`)).json()) as {
      model: Record<string, number>;
    };
    expect(stats.model.rejected_p).toBe(1);
  });

  it("refuses the edit without the beta header, and a trigger under the API's 50,000 minimum", async () => {
    const noBeta = await post(body("cmp-beta", [{ role: "user", content: "hi" }]), null);
    expect(noBeta.status).toBe(400);
    const low = await post(
      body("cmp-low", [{ role: "user", content: "hi" }], {
        context_management: { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 1000 } }] },
      }),
    );
    expect(low.status).toBe(400);
    expect(await low.text()).toContain("50000");
  });
});

const toolT = { name: "t", description: "t", input_schema: { type: "object" } };
