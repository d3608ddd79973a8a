/**
 * The turn routes of one session (`/v1/sessions/:id/...`): messages, tool-results, tool-approvals, chat, stream,
 * retry and cancel, each guarded by `sessionAccess` with its action. A turn answers as an SSE UI message stream,
 * or as JSON when the request prefers application/json (chat streams whatever the Accept; like the other answer
 * routes it gives a turn that still waits for other answers as its JSON state). Also exports `respond`
 * and `strictOutputSchema`, which the run routes share.
 */
import { type Context, Hono } from "hono";
import { accepts } from "hono/accepts";
import { keyedBodyHashes } from "../../crypto/body-hash";
import type { AgentChanges } from "../../d1/agents";
import { compileDeclared } from "../../json-schema/index";
import type { Result } from "../../model/errors";
import type { JsonObject } from "../../model/json";
import type { Part, ToolResultContent } from "../../model/message";
import type { ApprovalAnswer } from "../../session/approval-store";
import type { SuppliedResult } from "../../session/history/close-open-calls";
import { schemaOversized } from "../../session/oversized";
import { type Mode, RUN_KEY_PREFIX, type TurnAnswer } from "../../session/rpc-types";
import { UI_STREAM_HEADERS } from "../../session/stream/sse";
import { MAX_KEY_CHARS } from "../../storage/limits";
import { actorOf, allows, sessionAccess } from "../access";
import { agentArg } from "../directory";
import { ApiError, apiError } from "../errors";
import { type SessionRpc, sessionRef, turnCall, unwrap } from "../session-ref";
import type { AppEnv } from "../types";
import { intParam, readBody } from "../validate";
import { chatBodyToInput } from "./chat-body";

/**
 * A message's own parts and its json_schema may each take 1,000,000 bytes (storage/limits.ts), and its tool_results
 * as much as a /tool-results body (1 MiB; cut to their budget once read): 3 MiB holds all three.
 */
const MESSAGE_BODY_BYTES = 3 * 1024 * 1024;

/** Refusals of a /chat body whose approval answers decide nothing: every one was answered, or expired, already. */
const SPENT_APPROVAL: ReadonlySet<string> = new Set(["approval_already_answered", "approval_expired"]);

/**
 * Compiles a structured-output schema strictly; a bad one is refused before anything is written. One over the
 * stored budget is refused first (413), so a schema the session would not store is never compiled.
 */
export function strictOutputSchema(schema: unknown): JsonObject {
  const tooLarge = schemaOversized(schema);
  if (tooLarge) throw apiError(tooLarge.error);
  // It is declared to the provider as the structured_output tool's input: what providers refuse is refused here.
  const compiled = compileDeclared(schema);
  if (!compiled.ok) throw new ApiError(422, "invalid_schema", `json_schema: ${compiled.error}`);
  return schema as JsonObject;
}

interface RawResult {
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

function toSupplied(results: RawResult[] | undefined): SuppliedResult[] {
  return (results ?? []).map((r) => ({
    tool_use_id: r.tool_use_id,
    content: r.content,
    is_error: r.is_error ?? false,
  }));
}

/**
 * JSON only when the Accept header's first entry matching one of the two (by q, then exact types before `type/*`,
 * then header order; the any-type wildcard matches neither) is application/json; no Accept, or one where none decides, gets the
 * stream (docs/API.md has examples).
 */
function modeOf(c: Context): Mode {
  const supports = ["text/event-stream", "application/json"];
  return accepts(c, { header: "Accept", supports, default: "text/event-stream" }) === "application/json"
    ? "json"
    : "stream";
}

/** Debug mode: the session object's SQLite work for this call, as response headers (its D1 count: turnCall). */
function debugHeaders(answer: TurnAnswer): Record<string, string> {
  if (!answer.debug) return {};
  return {
    "x-debug-sql-statements": String(answer.debug.sql_statements),
    "x-debug-sql-rows-written": String(answer.debug.sql_rows_written),
    "x-debug-sql-rows-read": String(answer.debug.sql_rows_read),
  };
}

/** Renders a turn answer: an SSE UI message stream, or the JSON result. */
export function respond(c: Context<AppEnv>, answer: TurnAnswer, created = true): Response {
  const debug = debugHeaders(answer);
  if (answer.stream) {
    return new Response(answer.stream, {
      status: 200,
      headers: { ...UI_STREAM_HEADERS, "x-turn-id": answer.turn_id, ...debug },
    });
  }
  const status = created && !answer.replayed ? 201 : 200;
  return c.json(answer.result ?? { turn_id: answer.turn_id }, status, debug);
}

function after(c: Context): number | null {
  const raw = c.req.header("last-event-id") ?? c.req.query("after");
  if (raw === undefined || raw === "") return null;
  return intParam(raw, 0, 0, Number.MAX_SAFE_INTEGER, "Last-Event-ID / after");
}

/** A useChat body's tool outputs: only those still pending are new (a body repeats every output of its message). */
function submitPending(
  c: Context<AppEnv>,
  stub: SessionRpc,
  agent: AgentChanges,
  results: SuppliedResult[],
): Promise<Result<TurnAnswer>> {
  return turnCall(c, stub, { call: "submitToolResults", agent, results, mode: "stream", onlyPending: true });
}

/** GET …/stream: the newest turn's UI message stream from `Last-Event-ID` (or its start), 204 when none. */
async function openStream(c: Context<AppEnv>): Promise<Response> {
  const ref = sessionRef(c);
  const { stream, turn_id } = unwrap(await ref.stub.openStream(after(c), ref.stamp));
  if (!stream || !turn_id) return c.body(null, 204);
  return new Response(stream, { status: 200, headers: { ...UI_STREAM_HEADERS, "x-turn-id": turn_id } });
}

export const turnsRoutes = new Hono<AppEnv>()
  // Per-route guards: an API key, or a session token for this session with the route's action.
  .post("/:id/messages", sessionAccess("send"), async (c) => {
    const ref = sessionRef(c);
    const body = await readBody<{
      content: string | Part[];
      tool_results?: RawResult[];
      max_steps?: number;
      json_schema?: unknown;
    }>(c, "messageBody", MESSAGE_BODY_BYTES);
    const jsonSchema = body.json_schema === undefined ? undefined : strictOutputSchema(body.json_schema);
    const content: Part[] = typeof body.content === "string" ? [{ type: "text", text: body.content }] : body.content;
    // Whitespace-only text counts as none: providers refuse it or drop it, which would drop the whole message.
    const nonEmpty = content.filter((p) => p.type !== "text" || p.text.trim() !== "");
    if (nonEmpty.length === 0 && !body.tool_results?.length) {
      throw new ApiError(400, "invalid_request", "content: must not be empty");
    }
    const key = c.req.header("idempotency-key");
    if (key !== undefined && (key.length === 0 || key.length > MAX_KEY_CHARS)) {
      throw new ApiError(400, "invalid_request", `Idempotency-Key must be 1..${MAX_KEY_CHARS} characters`);
    }
    // A webhook run's turn carries `run:<run id>` (session-runs.ts): a message must not take, or squat, its key.
    if (key?.startsWith(RUN_KEY_PREFIX)) {
      throw new ApiError(
        400,
        "invalid_request",
        `Idempotency-Key must not start with "${RUN_KEY_PREFIX}" (webhook runs' keys)`,
      );
    }
    // A key's body is compared as its JSON value (crypto/body-hash.ts); the form stored before hashed its JSON text.
    const keyed = key ? { key, ...(await keyedBodyHashes(body, JSON.stringify(body))) } : null;
    const answer = unwrap(
      await turnCall(c, ref.stub, {
        call: "sendMessage",
        agent: await agentArg(c),
        input: {
          content: nonEmpty,
          tool_results: toSupplied(body.tool_results),
          ...(body.max_steps ? { max_steps: body.max_steps } : {}),
          ...(jsonSchema ? { json_schema: jsonSchema } : {}),
          ...(keyed ? { idempotency_key: keyed.key, body_hash: keyed.hash, earlier_body_hash: keyed.earlier } : {}),
        },
        mode: modeOf(c),
      }),
    );
    return respond(c, answer);
  })
  .post("/:id/tool-results", sessionAccess("send"), async (c) => {
    const ref = sessionRef(c);
    const body = await readBody<{ results: RawResult[] }>(c, "toolResultsBody");
    const answer = unwrap(
      await turnCall(c, ref.stub, {
        call: "submitToolResults",
        agent: await agentArg(c),
        results: toSupplied(body.results),
        mode: modeOf(c),
        onlyPending: false,
      }),
    );
    return respond(c, answer, false);
  })
  .post("/:id/tool-approvals", sessionAccess("approve"), async (c) => {
    const ref = sessionRef(c);
    const body = await readBody<{ approvals: ApprovalAnswer[] }>(c, "toolApprovalsBody");
    const answer = unwrap(
      await turnCall(c, ref.stub, {
        call: "answerApprovals",
        agent: await agentArg(c),
        answers: body.approvals,
        mode: modeOf(c),
        by: actorOf(c),
        fromChat: false,
      }),
    );
    return respond(c, answer, false);
  })
  .post("/:id/chat", sessionAccess("send"), async (c) => {
    const ref = sessionRef(c);
    // The same cap as /messages: a new message may carry a json_schema of up to 1,000,000 bytes beside its parts.
    const body = await readBody<{
      messages: unknown[];
      trigger?: string;
      messageId?: string | null;
      max_steps?: number;
      json_schema?: unknown;
    }>(c, "chatBody", MESSAGE_BODY_BYTES);
    const input = chatBodyToInput(body);
    const agent = await agentArg(c);
    // useChat's regenerate(): the same as POST /retry, streamed (its user message is not stored again).
    if (input.kind === "regenerate") {
      return respond(c, unwrap(await turnCall(c, ref.stub, { call: "retry", agent, mode: "stream" })));
    }
    if (input.kind === "message") {
      // Read for a new message only: a transport sends its extra body with every request, and answers continue a
      // turn (a regenerate re-runs one) with the options it started with.
      const jsonSchema = body.json_schema === undefined ? undefined : strictOutputSchema(body.json_schema);
      const sent = await turnCall(c, ref.stub, {
        call: "sendMessage",
        agent,
        input: {
          content: input.content,
          tool_results: [],
          ...(body.max_steps ? { max_steps: body.max_steps } : {}),
          ...(jsonSchema ? { json_schema: jsonSchema } : {}),
        },
        mode: "stream",
      });
      return respond(c, unwrap(sent));
    }
    // Nothing is created by answers (200): a turn that still waits for other answers is its state, as JSON.
    if (input.approvals.length > 0) {
      // One call checks the approvals and the outputs beside them before writing either: a refused output must
      // not leave approvals granted and their turn resumed. Deciding a pending approval needs `approve`; the
      // session object says whether any answer does (a repeat of an answered one does not), refusing first.
      const answered = await turnCall(c, ref.stub, {
        call: "answerApprovals",
        agent,
        answers: input.approvals,
        mode: "stream",
        by: actorOf(c),
        fromChat: true,
        mayDecide: allows(c, "approve"),
        outputs: input.results,
      });
      // useChat repeats answered approvals beside the client outputs that follow them (approved first, the output
      // later): then the outputs are the news. So are they beside an approval that expired (declined by then).
      // Outputs that are all of answered calls (useChat repeats every output of the message, an earlier step's
      // too) are no news: the answer is the approvals' refusal, not late_result.
      const spent = !answered.ok && SPENT_APPROVAL.has(answered.error.code);
      if (spent && input.results.length > 0) {
        const taken = await submitPending(c, ref.stub, agent, input.results);
        if (taken.ok || taken.error.code !== "late_result") return respond(c, unwrap(taken), false);
      }
      return respond(c, unwrap(answered), false);
    }
    // Client outputs of the same step: once they are in too, the turn resumes and this streams it.
    return respond(c, unwrap(await submitPending(c, ref.stub, agent, input.results)), false);
  })
  .get("/:id/stream", sessionAccess("stream"), openStream)
  // The AI SDK's default reconnect URL (`DefaultChatTransport.reconnectToStream`: `{api}/{chatId}/stream`,
  // what useChat's `resume: true` calls) for api = /v1/sessions/{id}/chat: the same stream, when the chat id
  // is the session id.
  .get("/:id/chat/:chatId/stream", sessionAccess("stream"), (c) => {
    if (c.req.param("chatId") !== c.req.param("id")) {
      throw new ApiError(404, "not_found", "the chat id must be the session id");
    }
    return openStream(c);
  })
  .post("/:id/retry", sessionAccess("send"), async (c) => {
    const ref = sessionRef(c);
    return respond(
      c,
      unwrap(await turnCall(c, ref.stub, { call: "retry", agent: await agentArg(c), mode: modeOf(c) })),
    );
  })
  .post("/:id/cancel", sessionAccess("send"), async (c) => {
    const ref = sessionRef(c);
    const { ok: _ok, ...res } = unwrap(await ref.stub.cancel(ref.stamp));
    return c.json(res);
  });
