// The mock server's Chat Completions endpoint (mock/openai.ts): chunk shapes, usage and [DONE], a refusal in
// delta.refusal, non-streaming answers, and the bearer token it requires.
import { describe, expect, it } from "vitest";
import { mockPerFile, openaiRequest, parseSse, postOpenAI, script, TWO_CALL_REPLY } from "./helpers.ts";

const mock = mockPerFile();

const reply = TWO_CALL_REPLY;

describe("OpenAI streaming", () => {
  it("streams chunks of the real shape, usage, then [DONE]", async () => {
    await script(mock.url, "o-shape", [{ reply }]);
    const res = await postOpenAI(mock.url, openaiRequest("o-shape", { stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const events = parseSse(text);
    expect(events.every((e) => e.event === null)).toBe(true);
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const id = chunks[0].id;
    expect(id).toMatch(/^chatcmpl-/);
    for (const c of chunks) {
      expect(Object.keys(c)).toEqual([
        "id",
        "object",
        "created",
        "model",
        "system_fingerprint",
        "choices",
        ...(c.usage ? ["usage"] : []),
      ]);
      expect(c).toMatchObject({ id, object: "chat.completion.chunk", model: "o-shape" });
    }
    const choices = chunks.slice(0, -1).map((c) => c.choices[0]);
    for (const choice of choices) expect(Object.keys(choice)).toEqual(["index", "delta", "logprobs", "finish_reason"]);
    expect(choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    const reasoning = choices.map((c) => c.delta.reasoning_content ?? "").join("");
    const content = choices.map((c) => c.delta.content ?? "").join("");
    expect(reasoning).toBe("Let me check.");
    expect(content).toBe("Checking both.");
    const calls = choices.flatMap((c) => c.delta.tool_calls ?? []);
    const first = calls.filter((c) => c.id !== undefined);
    expect(first).toEqual([
      {
        index: 0,
        id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA",
        type: "function",
        function: { name: "get_weather", arguments: "" },
      },
      {
        index: 1,
        id: "toolu_01BBBBBBBBBBBBBBBBBBBBBB",
        type: "function",
        function: { name: "get_time", arguments: "" },
      },
    ]);
    const args = [0, 1].map((i) =>
      calls
        .filter((c) => c.index === i)
        .map((c) => c.function.arguments)
        .join(""),
    );
    expect(args.map((a) => JSON.parse(a))).toEqual(reply.tool_calls.map((c) => c.input));
    const last = choices[choices.length - 1];
    expect(last).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" });
    const usage = chunks[chunks.length - 1];
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 });
  });

  it("omits the usage chunk without include_usage and generates call_ ids", async () => {
    await script(mock.url, "o-plain", [{ reply: { tool_calls: [{ name: "f", input: {} }] } }]);
    const text = await (await postOpenAI(mock.url, openaiRequest("o-plain"))).text();
    const chunks = parseSse(text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: null });
    expect(chunks[1].choices[0].delta.tool_calls[0].id).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("streams a scripted refusal in delta.refusal under finish_reason stop", async () => {
    await script(mock.url, "o-refusal", [{ reply: { refusal: "I'm sorry, I can't help with that." } }]);
    const text = await (await postOpenAI(mock.url, openaiRequest("o-refusal"))).text();
    const choices = parseSse(text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data).choices[0]);
    expect(choices[0].delta).toEqual({ role: "assistant", content: null, refusal: "" });
    expect(choices.some((c) => c.delta.content)).toBe(false);
    expect(choices.map((c) => c.delta.refusal ?? "").join("")).toBe("I'm sorry, I can't help with that.");
    expect(choices.at(-1).finish_reason).toBe("stop");
  });

  it("answers non-streaming requests with a chat.completion", async () => {
    await script(mock.url, "o-json", [{ reply: { text: "Hi there", stop_reason: "max_tokens" } }]);
    const body = await (await postOpenAI(mock.url, openaiRequest("o-json", { stream: false }))).json();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "o-json",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi there" }, finish_reason: "length" }],
    });
  });

  it("requires a bearer token", async () => {
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(openaiRequest("o")),
    });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
  });
});
