// Turns of structured output that fail (src/session/turn/structured.ts, decided in turn-runner.ts). A
// structured_output call cut off by the output limit or a refusal (cutStructured): the call is stripped (DESIGN §3,
// P5), and the turn fails naming the cause, with the step's stop as its finish reason and not retryable, not as a
// model that ended the turn in text. A turn whose stored json_schema is no longer accepted (contractOf: stored before
// a deploy that tightened the checks) fails with invalid_schema, naming why, rather than completing without it.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { anthropicCut, openaiCut } from "../../cut-streams";
import { ADMIN, api, apiJson, clientTool, type Setup, script, send, sessionStub, setup, uiChunks } from "../../helpers";

const SCHEMA = {
  type: "object",
  properties: { report: { type: "string" } },
  required: ["report"],
  additionalProperties: false,
};

type Failed = {
  status: string;
  finish_reason: string | null;
  error?: { code: string; message: string; retryable?: boolean };
};

const call = (id: string, text = "") => ({ text, id, name: "structured_output", partial: '{"report": "The first' });

describe("a structured_output call cut off by max_tokens", () => {
  it("fails naming the output limit after text (anthropic, default max_tokens): finish max_tokens, not retryable", async () => {
    const s = await setup();
    await script(s.model, [{ raw: anthropicCut(call("toolu_cut_text", "Here is the report.")) }]);
    const body = (await send(s, { content: "report", json_schema: SCHEMA })).body as unknown as Failed;
    expect(body).toMatchObject({ status: "failed", finish_reason: "max_tokens" });
    expect(body.error).toMatchObject({ code: "structured_output_missing", retryable: false });
    expect(body.error?.message).toBe(
      "structured_output was cut off by the output limit (max_tokens 8192); raise model.max_tokens or ask for a shorter answer",
    );
  });

  it("fails naming the agent's max_tokens when the step streamed only the call (anthropic): not retryable", async () => {
    const s = await setup();
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model, max_tokens: 300 } },
    });
    expect(put.status).toBe(200);
    await script(s.model, [{ raw: anthropicCut(call("toolu_cut_bare")) }]);
    const body = (await send(s, { content: "report", json_schema: SCHEMA })).body as unknown as Failed;
    expect(body).toMatchObject({ status: "failed", finish_reason: "max_tokens" });
    expect(body.error).toMatchObject({ code: "structured_output_missing", retryable: false });
    expect(body.error?.message).toContain("cut off by the output limit (max_tokens 300)");
  });

  it("fails naming the output limit on a Chat Completions finish_reason length: finish max_tokens, not retryable", async () => {
    const s = await setup({}, "openai");
    await script(s.model, [{ raw: openaiCut(call("call_cut_so", "Here is the report.")) }]);
    const body = (await send(s, { content: "report", json_schema: SCHEMA })).body as unknown as Failed;
    expect(body).toMatchObject({ status: "failed", finish_reason: "max_tokens" });
    expect(body.error).toMatchObject({ code: "structured_output_missing", retryable: false });
    expect(body.error?.message).toContain(
      "cut off by the output limit (max_tokens: the server's default); raise model.max_tokens",
    );
  });
});

describe("a structured_output call cut off by max_tokens, on /chat", () => {
  it("streams the error, then finish with finishReason length, as a turn cut by the output limit does", async () => {
    const s = await setup();
    await script(s.model, [{ raw: anthropicCut(call("toolu_cut_chat")) }]);
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "report" }] }],
        json_schema: SCHEMA,
      },
    });
    expect(res.status).toBe(200);
    const ends = (await uiChunks(res)).filter((c) => c.type === "error" || c.type === "finish");
    expect(ends).toEqual([
      { type: "error", errorText: expect.stringContaining("cut off by the output limit (max_tokens 8192)") },
      expect.objectContaining({ type: "finish", finishReason: "length" }),
    ]);
  });
});

describe("a structured_output call cut off by a refusal", () => {
  it("fails saying the model refused (anthropic): finish refusal, not retryable", async () => {
    const s = await setup();
    await script(s.model, [{ raw: anthropicCut(call("toolu_cut_refused"), "refusal") }]);
    const body = (await send(s, { content: "report", json_schema: SCHEMA })).body as unknown as Failed;
    expect(body).toMatchObject({ status: "failed", finish_reason: "refusal" });
    expect(body.error).toMatchObject({ code: "structured_output_missing", retryable: false });
    expect(body.error?.message).toContain("structured_output was cut off by a refusal");
  });
});

/** A json_schema accepted when it was stored; its lookahead is one the linear-time regex engine cannot run. */
const LOOKAHEAD = {
  type: "object",
  properties: { code: { type: "string", pattern: "^(?=.*\\d).{8,}$" } },
  required: ["code"],
};

/** The schema the turn is admitted with: LOOKAHEAD's shape without its pattern. */
const AS_SENT = { ...LOOKAHEAD, properties: { code: { type: "string" } } };

const NO_LONGER_ACCEPTED = {
  code: "invalid_schema",
  message:
    'the turn\'s json_schema is no longer accepted: "pattern" at /properties/code: "^(?=.*\\\\d).{8,}$" has a ' +
    "lookahead ((?= or (?!), which the linear-time regex engine cannot run",
  retryable: false,
};

/**
 * Writes LOOKAHEAD as the stored json_schema of every turn of the session, as one stored before the deploy that
 * refuses it would be, and restarts the object (a deploy does): the new instance reads the rows as stored.
 */
async function storeLookahead(s: Setup): Promise<void> {
  await runInDurableObject(await sessionStub(s), (_i, state) => {
    state.storage.sql.exec("UPDATE turns SET json_schema = ?", JSON.stringify(LOOKAHEAD));
  });
  await abortAllDurableObjects();
}

describe("a turn whose stored json_schema is no longer accepted", () => {
  it("fails with invalid_schema, naming why, when it resumes from a pause for client results", async () => {
    const s = await setup({ tools: [clientTool("ask_code")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_ask_code", name: "ask_code", input: { q: "code?" } }] } },
      { reply: { text: "Here it is, in plain text." } },
    ]);
    const paused = await send(s, { content: "get a code", json_schema: AS_SENT });
    expect(paused.body.status).toBe("awaiting_tool_results");
    await storeLookahead(s);
    const res = await apiJson<{ status: string; error?: unknown }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_ask_code", content: "abc12345" }] },
    });
    expect(res.status).toBe(200);
    expect([res.body.status, res.body.error]).toEqual(["failed", NO_LONGER_ACCEPTED]);
  });

  it("fails a /retry of it with invalid_schema, naming why", async () => {
    const s = await setup();
    await script(s.model, [{ error: { status: 400, message: "bad thing" } }, { reply: { text: "Plain text." } }]);
    const first = await send(s, { content: "get a code", json_schema: AS_SENT });
    expect(first.body.error).toMatchObject({ code: "provider_http_error" });
    await storeLookahead(s);
    const retry = await apiJson<{ status: string; error?: unknown }>(`/v1/sessions/${s.session}/retry`, {
      method: "POST",
      key: s.key,
    });
    expect([retry.body.status, retry.body.error]).toEqual(["failed", NO_LONGER_ACCEPTED]);
  });
});
