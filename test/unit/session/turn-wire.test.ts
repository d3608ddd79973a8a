// The turn call's answer between the session object and the worker: a stream crosses as the body with
// its turn id, replay flag and debug counts; a failure or a JSON result crosses whole.
import { describe, expect, it } from "vitest";
import type { Result } from "../../../src/model/errors";
import { answerResponse, callRequest, readAnswer, readCall, type WireAnswer } from "../../../src/session/turn-wire";

type TurnAnswer = WireAnswer & { result?: unknown };

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new Response(text).body as ReadableStream<Uint8Array>;
}

describe("turn wire", () => {
  it("carries a call to the object unchanged", async () => {
    const call = {
      call: "answerApprovals",
      agent: { epoch: 7, since: 5, changed: [["support", 6]] },
      answers: [{ approval_id: "apr_1", approved: false, reason: "no" }],
      mode: "stream",
      by: "key:k1",
      fromChat: true,
    };
    expect(await readCall(callRequest(call))).toEqual(call);
  });

  it("carries a streamed answer as the body, with its turn id, replay flag and debug counts", async () => {
    const sent: Result<TurnAnswer> = {
      ok: true,
      turn_id: "turn_wire_1",
      replayed: true,
      stream: streamOf("data: one\n\n"),
      debug: { sql_statements: 3, sql_rows_written: 2, sql_rows_read: 5, d1_statements: 0 },
    };
    const got = await readAnswer<TurnAnswer>(answerResponse(sent));
    if (!got.ok || !got.stream) throw new Error("expected a stream answer");
    expect(got.turn_id).toBe("turn_wire_1");
    expect(got.replayed).toBe(true);
    expect(got.debug).toEqual({ sql_statements: 3, sql_rows_written: 2, sql_rows_read: 5, d1_statements: 0 });
    expect(await new Response(got.stream).text()).toBe("data: one\n\n");
  });

  it("leaves a stream answer without debug counts without them", async () => {
    const got = await readAnswer<TurnAnswer>(
      answerResponse({ ok: true, turn_id: "turn_wire_2", replayed: false, stream: streamOf("x") }),
    );
    expect(got).toMatchObject({ ok: true, turn_id: "turn_wire_2", replayed: false });
    expect(got.ok && "debug" in got).toBe(false);
  });

  it("carries a failure whole", async () => {
    const sent: Result<TurnAnswer> = {
      ok: false,
      error: { code: "turn_in_progress", message: "a turn is already running in this session" },
    };
    expect(await readAnswer<TurnAnswer>(answerResponse(sent))).toEqual(sent);
  });

  it("carries a JSON-mode result whole", async () => {
    const sent: Result<TurnAnswer> = {
      ok: true,
      turn_id: "turn_wire_3",
      replayed: false,
      result: {
        turn_id: "turn_wire_3",
        status: "completed",
        finish_reason: "end_turn",
        messages: [],
        usage: { input_tokens: 5 },
      },
    };
    expect(await readAnswer<TurnAnswer>(answerResponse(sent))).toEqual(sent);
  });
});
