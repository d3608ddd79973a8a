// Answers one provider request: auth, validation, recording, then a scripted step or the default brain.
import type { IncomingMessage, ServerResponse } from "node:http";
import { defaultReply, isSummaryRequest, summaryReply } from "./brain.ts";
import type { Codec, ErrorSpec, RequestContext } from "./codec.ts";
import { type MockState, redactHeaders } from "./control.ts";
import { writeWithFaults } from "./faults.ts";
import { requestId } from "./ids.ts";
import { type Faults, isRecord, type Rejection, type ReplySpec, type Step } from "./types.ts";

const SLOW_PREFIX = "mock-slow";
const SLOW_DELAY_MS = 20;

function sendError(codec: Codec, res: ServerResponse, error: ErrorSpec, retryAfter?: number): void {
  const id = requestId();
  const body = codec.errorBody(error, id);
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    [codec.requestIdHeader]: id,
  };
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  res.writeHead(error.status, headers);
  res.end(body);
}

function streamHeaders(codec: Codec, contentType = "text/event-stream"): Record<string, string> {
  return {
    "content-type": contentType,
    "cache-control": "no-cache",
    connection: "keep-alive",
    [codec.requestIdHeader]: requestId(),
  };
}

export async function handleProvider(
  codec: Codec,
  state: MockState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  raw: string,
  log: boolean,
): Promise<void> {
  let body: unknown = null;
  let parsed = true;
  try {
    body = JSON.parse(raw);
  } catch {
    parsed = false;
  }
  const model = isRecord(body) && typeof body.model === "string" ? body.model : "";
  const rejection: Rejection | null =
    codec.authReject(req.headers) ??
    (parsed
      ? (codec.validate(body) ??
        codec.serverCompaction?.reject(body as Record<string, unknown>, req.headers, state.issued(model)) ??
        null)
      : codec.parseReject());
  const record = state.record(
    {
      protocol: codec.protocol,
      path,
      model,
      headers: redactHeaders(req.headers),
      body: parsed ? body : null,
      raw,
      rejected: rejection ? { status: rejection.status, message: rejection.message } : null,
    },
    rejection,
  );
  if (rejection) {
    if (log) console.log(`${codec.protocol} ${model || "-"} → ${rejection.status} ${rejection.message}`);
    sendError(codec, res, rejection);
    return;
  }
  const count = state.tokenCountOf(model);
  const ctx: RequestContext = { body: body as Record<string, unknown>, raw, model, count };
  const window = state.window(model);
  const tokens = codec.serverCompaction?.tokens(ctx.body, count) ?? count(raw);
  const output = state.countsOutput(model) ? codec.outputTokens(ctx.body) : 0;
  if (window !== undefined && tokens + output > window) {
    state.count(model, "overflow");
    record.served = "error";
    if (log) console.log(`${codec.protocol} ${model} → 400 context overflow (${tokens} + ${output} > ${window})`);
    sendError(codec, res, codec.overflowError(tokens, window, output));
    return;
  }
  const input = codec.brainInput(ctx.body);
  // Summary requests are answered by the summary brain and never consume a scripted step.
  if (isSummaryRequest(input)) {
    state.count(model, "summaries");
    record.served = "summary";
    await serve(codec, res, ctx, state.popSummary(model) ?? { reply: summaryReply(input) });
    return;
  }
  // Server-side compaction: past the request's trigger, the answer opens with the summary block.
  const compaction = codec.serverCompaction?.compact(ctx.body, tokens, count) ?? null;
  const step = state.pop(model);
  record.served = step ? stepKind(step) : "default";
  if (log) console.log(`${codec.protocol} ${model} → ${record.served}`);
  const chosen = step ?? { reply: defaultReply(codec.brainInput(ctx.body)) };
  if (compaction) {
    state.count(model, "compactions");
    // Only a reply carries it. Any compaction handed out may come back, but only one the client surely received
    // must: a faulted answer may be cut before its compaction, or after it (then the client may keep it).
    if ("reply" in chosen) state.issue(model, compaction.encrypted_content, !chosen.faults);
    if (log)
      console.log(`${codec.protocol} ${model} → compaction (${compaction.tokens_before} → ${compaction.tokens_after})`);
  }
  await serve(
    codec,
    res,
    ctx,
    compaction && "reply" in chosen ? { ...chosen, reply: { ...chosen.reply, compaction } } : chosen,
  );
}

function stepKind(step: Step): "reply" | "error" | "raw" | "stream_error" {
  if ("reply" in step) return "reply";
  if ("error" in step) return "error";
  if ("raw" in step) return "raw";
  return "stream_error";
}

async function serve(codec: Codec, res: ServerResponse, ctx: RequestContext, step: Step): Promise<void> {
  const streaming = ctx.body.stream === true;
  const extraDelayMs = ctx.model.startsWith(SLOW_PREFIX) ? SLOW_DELAY_MS : 0;
  const plan = (frames: string[], faults: Faults | undefined, headers: Record<string, string>, status = 200) =>
    writeWithFaults(res, { status, headers, frames, faults, extraDelayMs, malformedFrame: codec.malformedFrame });

  if ("error" in step) {
    const { status, type, message, retry_after } = step.error;
    sendError(codec, res, { status, type, message }, retry_after);
    return;
  }
  if ("raw" in step) {
    const sse = /^(event|data|id|retry)?:/m.test(step.raw.split("\n", 1)[0] ?? "");
    const contentType = step.content_type ?? (sse ? "text/event-stream" : "application/json");
    const frames = step.raw.split(/(?<=\r?\n\r?\n)/).filter((f) => f.length > 0);
    await plan(frames, step.faults, streamHeaders(codec, contentType), step.status ?? 200);
    return;
  }
  if ("stream_error" in step) {
    const { after_events, type, message, code, reply } = step.stream_error;
    if (!streaming) {
      sendError(codec, res, { status: codec.streamErrorStatus, type, message, code });
      return;
    }
    const full = codec.streamFrames(reply ?? defaultReply(codec.brainInput(ctx.body)), ctx);
    const frames = [...full.slice(0, after_events), codec.streamErrorFrame(type, message, code)];
    await plan(frames, step.faults, streamHeaders(codec));
    return;
  }
  const reply: ReplySpec = step.reply;
  if (streaming) {
    await plan(codec.streamFrames(reply, ctx), step.faults, streamHeaders(codec));
    return;
  }
  const json = codec.messageBody(reply, ctx);
  const headers = { "content-type": "application/json", [codec.requestIdHeader]: requestId() };
  if (step.faults === undefined && extraDelayMs === 0) {
    res.writeHead(200, { ...headers, "content-length": String(Buffer.byteLength(json)) });
    res.end(json);
    return;
  }
  await plan([json], step.faults, headers);
}
