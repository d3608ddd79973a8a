// The mock's OpenAI Responses API (`POST /v1/responses`): strict function_call ↔ function_call_output
// pairing, server-side compaction past `compact_threshold` that must come back verbatim, and a refusal content part.
import { describe, expect, it } from "vitest";
import { mockPerFile, openaiHeaders, parseSse, readAll, script } from "./helpers.ts";

const mock = mockPerFile();

const CM = [{ type: "compaction", compact_threshold: 2000 }];
/** ~3,000 tokens of user text (4 characters each). */
const LONG = "word ".repeat(2400);

function post(body: unknown): Promise<Response> {
  return fetch(`${mock.url}/v1/responses`, { method: "POST", headers: openaiHeaders, body: JSON.stringify(body) });
}

const say = (role: string, content: string) => ({ type: "message", role, content });
const fc = (id: string) => ({ type: "function_call", call_id: id, name: "t", arguments: "{}" });
const out = (id: string) => ({ type: "function_call_output", call_id: id, output: "ok" });

async function streamed(res: Response): Promise<Array<Record<string, unknown>>> {
  expect(res.status).toBe(200);
  return parseSse(await res.text()).map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

/** The compaction item a stream handed over whole (at its output_item.done), read up to where it ends or is cut. */
async function compactionItem(res: Response): Promise<{ type: "compaction"; encrypted_content: string }> {
  expect(res.status).toBe(200);
  const text = new TextDecoder().decode((await readAll(res)).bytes);
  const done = parseSse(text)
    .map((e) => JSON.parse(e.data) as { type: string; item?: { type: string; encrypted_content: string } })
    .find((e) => e.type === "response.output_item.done" && e.item?.type === "compaction");
  expect(done?.item?.encrypted_content).toMatch(/^mockcmp_/);
  return { type: "compaction", encrypted_content: String(done?.item?.encrypted_content) };
}

describe("mock /v1/responses pairing", () => {
  it("answers a paired input with a completed stream", async () => {
    const events = await streamed(
      await post({ model: "r-ok", stream: true, input: [say("user", "hi"), fc("c1"), out("c1"), say("user", "go")] }),
    );
    expect(events[0]?.type).toBe("response.created");
    expect(events[events.length - 1]?.type).toBe("response.completed");
  });

  it("refuses a function_call without its output", async () => {
    const res = await post({
      model: "r-unpaired",
      stream: true,
      input: [say("user", "hi"), fc("c1"), say("user", "x")],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      "No tool output found for function call c1.",
    );
  });

  it("refuses an output with no call before it", async () => {
    const res = await post({ model: "r-orphan", stream: true, input: [say("user", "hi"), out("c9")] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("call_id c9");
  });
});

describe("mock /v1/responses compaction", () => {
  it("past the threshold, streams the compaction item first and requires it back verbatim", async () => {
    const model = "r-cmp";
    const events = await streamed(
      await post({ model, stream: true, context_management: CM, input: [say("user", `first ${LONG}`)] }),
    );
    const added = events
      .filter((e) => e.type === "response.output_item.added")
      .map((e) => e.item as Record<string, unknown>);
    expect(added[0]?.type).toBe("compaction");
    const encrypted = String(added[0]?.encrypted_content);
    expect(added[1]?.type).toBe("message");

    // A later request that drops the item is refused; one that carries it is served (and reads little).
    const dropped = await post({ model, stream: true, context_management: CM, input: [say("user", "next")] });
    expect(dropped.status).toBe(400);
    const carried = await post({
      model,
      stream: true,
      context_management: CM,
      input: [say("user", `first ${LONG}`), { type: "compaction", encrypted_content: encrypted }, say("user", "next")],
    });
    const done = (await streamed(carried)).find((e) => e.type === "response.completed");
    const response = done?.response as { usage: { input_tokens: number } } | undefined;
    expect(response?.usage.input_tokens).toBeLessThan(500);
  });

  it("takes back a compaction handed over in an answer cut after it, in place of the one before it", async () => {
    const model = "r-cmp-cut";
    const first = await compactionItem(
      await post({ model, stream: true, context_management: CM, input: [say("user", `first ${LONG}`)] }),
    );
    // The next answer compacts again and is cut right after its compaction item (created, in_progress, added, done).
    await script(mock.url, model, [{ reply: { text: "never whole" }, faults: { cut_after_events: 4 } }]);
    const second = await compactionItem(
      await post({ model, stream: true, context_management: CM, input: [first, say("user", `second ${LONG}`)] }),
    );
    expect(second).not.toEqual(first);
    const next = await post({ model, stream: true, context_management: CM, input: [second, say("user", "next")] });
    expect(next.status).toBe(200);
  });

  it("a compaction answered with a scripted error is never handed over, so need not come back", async () => {
    const model = "r-cmp-error";
    await script(mock.url, model, [{ error: { status: 500 } }]);
    const failed = await post({ model, stream: true, context_management: CM, input: [say("user", `first ${LONG}`)] });
    expect(failed.status).toBe(500);
    const next = await post({ model, stream: true, context_management: CM, input: [say("user", "next")] });
    expect(next.status).toBe(200);
  });

  it("refuses a compaction item it did not issue", async () => {
    const res = await post({
      model: "r-forged",
      stream: true,
      input: [{ type: "compaction", encrypted_content: "forged" }, say("user", "hi")],
    });
    expect(res.status).toBe(400);
  });
});

describe("mock /v1/responses refusal", () => {
  it("streams a scripted refusal as a refusal content part of a completed response", async () => {
    const refusal = "I'm sorry, I can't help with that.";
    await script(mock.url, "r-refusal", [{ reply: { refusal } }]);
    const events = await streamed(await post({ model: "r-refusal", stream: true, input: "hi" }));
    expect(events.some((e) => e.type === "response.output_text.delta")).toBe(false);
    const deltas = events.filter((e) => e.type === "response.refusal.delta").map((e) => e.delta);
    expect(deltas.join("")).toBe(refusal);
    expect(events.find((e) => e.type === "response.refusal.done")).toMatchObject({ refusal });
    const done = events.find((e) => e.type === "response.output_item.done");
    expect(done?.item).toMatchObject({ type: "message", content: [{ type: "refusal", refusal }] });
    expect(events.at(-1)?.type).toBe("response.completed");
  });
});

describe("mock /v1/responses stream_error", () => {
  it("sends the live API's nested error event after K events", async () => {
    await script(mock.url, "r-se-nested", [
      {
        stream_error: {
          after_events: 1,
          type: "invalid_request_error",
          code: "context_length_exceeded",
          message: "too long",
        },
      },
    ]);
    const events = await streamed(await post({ model: "r-se-nested", stream: true, input: "hi" }));
    expect(events.map((e) => e.type)).toEqual(["response.created", "error"]);
    expect(events[1]).toEqual({
      type: "error",
      error: { type: "invalid_request_error", code: "context_length_exceeded", message: "too long", param: null },
      sequence_number: 0,
    });
  });
});
