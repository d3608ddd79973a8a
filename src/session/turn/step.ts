/**
 * One step of a turn: `stepRequest` builds the provider request from history and the session's tools, and
 * `runStep` streams it, writing completed blocks to history as they arrive. Provider failures and cancellation
 * come back as a `StepResult` (and in the event log), never thrown.
 */
import { flag } from "../../env-values";
import type { ErrorInfo } from "../../model/errors";
import type { CompactionPart, Part } from "../../model/message";
import type { StopReason } from "../../model/stream";
import { attributesOf, inSpan } from "../../observability/tracing";
import { checkWireInvariant, endpointFromEnv, getAdapter, policyFor } from "../../providers/index";
import { ProviderFailure, type RetryPolicy, type StepRequest } from "../../providers/types";
import { headChars, jsonBytes } from "../../storage/fit";
import { projectionFor, stepTools, systemPrompt } from "../../tools/disclosure";
import { REFS_PROMPT } from "../../tools/refs/index";
import type { CompactionInfo } from "../compaction/compaction-info";
import { fitNative } from "../compaction/fit-native";
import { keptAfterCompaction } from "../compaction/kept-after-compaction";
import type { Execution } from "../history/call-ledger";
import { CallIds } from "./call-ids";
import type { TurnContext } from "./context";
import { type OutputContract, STRUCTURED_OUTPUT, structuredDeclaration } from "./structured";

export type StepResult =
  | {
      kind: "done";
      stop: StopReason;
      messageSeq: number | null;
      malformed: Map<string, string>;
      /** The names of the calls the step's stop cut off (block_incomplete): stripped, never stored or run. */
      stripped: string[];
      usage: Record<string, number>;
    }
  | { kind: "failed"; error: ErrorInfo }
  | { kind: "cancelled" };

/** The request for one step: canonical history projected with the session's tool disclosure. */
export function stepRequest(ctx: TurnContext, contract: OutputContract | null, listing: string): StepRequest {
  const { agent, history, tools } = ctx.deps;
  const reg = tools.registry(agent);
  const declared = keptAfterCompaction(
    stepTools(reg, tools.loaded.list(), projectionFor(agent.model)),
    history.preamble(),
  );
  return {
    model: agent.model,
    baseUrl: endpointFromEnv(agent.model.provider, ctx.deps.env).baseUrl,
    // References work only in the arguments of tools the session runs (http, MCP): only then are they explained.
    system: systemPrompt(agent.system, [listing, reg.takesReferences() ? REFS_PROMPT : ""]),
    messages: history.view(),
    tools: contract ? [...declared, structuredDeclaration(contract)] : declared,
  };
}

/** How much of a failed step's text its partial_text_dropped event keeps (and an open block keeps for it). */
const DROPPED_TEXT_CHARS = 2000;

function policy(ctx: TurnContext): RetryPolicy {
  return policyFor(ctx.deps.env);
}

/** Who runs a tool's calls (history records it per call; the stream marks what the session runs itself). */
export function executionOf(ctx: TurnContext): (name: string) => Execution {
  return (name) => {
    if (name === STRUCTURED_OUTPUT) return "builtin";
    const tool = ctx.deps.tools.registry(ctx.deps.agent).get(name);
    if (!tool) return "unknown";
    if (tool.source === "builtin" || tool.source === "mcp") return tool.source;
    return tool.execution?.type ?? "unknown";
  };
}

function numericUsage(u: Record<string, number | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(u)) if (typeof v === "number") out[k] = v;
  return out;
}

/**
 * One provider request. Completed blocks are persisted as they complete
 * (DESIGN §3): a finished tool_use is flushed to history with everything
 * before it at once, so a cut stream cannot lose it; an unfinished block never
 * becomes a part; text after the last tool_use is kept only if the step ends.
 */
export function runStep(ctx: TurnContext, step: number, req: StepRequest): Promise<StepResult> {
  const attributes = {
    "switchboard.turn_id": ctx.turnId,
    "switchboard.step": step,
    "switchboard.provider": req.model.provider,
    "switchboard.model": req.model.name,
  };
  // One span per provider request, retries included (each retry is a child span, see provider_retry).
  return inSpan("switchboard.provider_request", attributes, async (span) => {
    const stats = { retries: 0 };
    const result = await requestStep(ctx, step, req, stats);
    span.setAttributes({
      "switchboard.status": result.kind === "done" ? "ok" : result.kind === "failed" ? result.error.code : "cancelled",
      "switchboard.retries": stats.retries,
      ...(result.kind === "done" ? { "switchboard.stop_reason": result.stop, ...attributesOf(result.usage) } : {}),
      ...(result.kind === "failed" ? attributesOf({ error: result.error.message }) : {}),
    });
    return result;
  });
}

async function requestStep(
  ctx: TurnContext,
  step: number,
  req: StepRequest,
  stats: { retries: number },
): Promise<StepResult> {
  const { agent, history, eventLog, env, turns } = ctx.deps;
  const adapter = getAdapter(agent.model.provider);
  if (flag(env.SWITCHBOARD_DEBUG_CHECKS)) {
    const violations = checkWireInvariant(agent.model.provider, adapter.buildBody(req));
    if (violations.length > 0) {
      eventLog.record("invariant_violation", ctx.turnId, { step, violations });
      return { kind: "failed", error: { code: "invariant_violation", message: violations.join("; ") } };
    }
  }
  let messageSeq: number | null = null;
  let buffer: Part[] = [];
  // The text of blocks still streaming, by block index: what the client already saw of a block that has no part
  // yet, recorded in partial_text_dropped if the step fails before the block completes.
  const openText = new Map<number, string>();
  let stop: StopReason = "end_turn";
  const malformed = new Map<string, string>();
  const stripped: string[] = [];
  // Providers repeat running totals within a step (Anthropic: message_start, then message_delta),
  // so the step keeps the latest value per field and adds it to the turn once.
  let usage: Record<string, number> = {};
  const execution = executionOf(ctx);
  const flush = () => {
    if (buffer.length === 0) return;
    // A provider's compaction too large for its rows is dropped as a failed one (`fitNative`): never a write that
    // fails, which would fail every later turn too.
    let dropped: number | null = null;
    const parts = buffer.map((p) => {
      if (p.type !== "compaction") return p;
      const fitted = fitNative(p);
      if (p.content !== null && fitted.content === null) {
        const bytes = jsonBytes(p);
        const reason = `the provider's compaction (${bytes} bytes) does not fit a stored row; the history it would replace is kept, and our own summary compacts at the threshold instead`;
        eventLog.record("compaction_failed", ctx.turnId, { reason, native: true });
        dropped = bytes;
      }
      return fitted;
    });
    buffer = [];
    let compacted: CompactionInfo | null = null;
    messageSeq = ctx.tx(() => {
      const seq = history.appendAssistantParts(ctx.turnId, messageSeq, parts, execution);
      // Asked again, the provider would return as large a block on every step: ours compacts next (stored with
      // the dropped block, so a restart does not ask again either).
      if (dropped !== null) ctx.deps.compactor.droppedNative(dropped);
      // A provider's compaction is recorded in the transaction that writes its block (never apart);
      // one without content failed and changes nothing (the provider treats it as a no-op).
      const native = parts.find((p): p is CompactionPart => p.type === "compaction" && p.content !== null);
      if (native) compacted = ctx.deps.compactor.recordNative(agent, ctx.turnId, seq, native);
      return seq;
    });
    if (compacted) ctx.out.emit({ type: "data", name: "compaction", data: compacted, transient: false });
    // A stored call's frames are written with it (one commit: the same synchronous block), so after a crash its
    // synthetic result is told of a call the resumed stream shows, with the text before it. A text-only step's
    // frames keep to the log's batches: a steady text turn writes no more rows.
    if (parts.some((p) => p.type === "tool_use")) ctx.out.persist();
  };
  // Provider ids are made session-unique before anything (history, UI stream, events) sees them.
  const ids = new CallIds((id) => history.hasToolUseId(id));
  try {
    for await (const wire of adapter.stream(req, endpointFromEnv(agent.model.provider, env), policy(ctx), ctx.signal)) {
      const { ev, renamed } = ids.map(wire);
      if (renamed) eventLog.record("tool_use_id_remapped", ctx.turnId, { step, ...renamed });
      ctx.out.emit({ type: "provider", event: ev });
      switch (ev.type) {
        case "text_delta": {
          const sofar = openText.get(ev.index) ?? "";
          if (sofar.length < DROPPED_TEXT_CHARS) openText.set(ev.index, sofar + ev.text);
          break;
        }
        case "block_stop":
          openText.delete(ev.index);
          buffer.push(ev.part);
          if (ev.part.type === "tool_use") flush();
          break;
        case "block_invalid":
          // The block finished but its arguments are not a JSON object: kept with empty input and
          // answered with an error the model can correct from, never silently dropped.
          malformed.set(ev.id, ev.reason);
          buffer.push({ type: "tool_use", id: ev.id, name: ev.name, input: {} });
          flush();
          break;
        case "block_incomplete":
          // Cut off by the output limit or a refusal (P5): stripped, never paired; the step ends with
          // max_tokens or refusal.
          eventLog.record("tool_use_stripped", ctx.turnId, {
            step,
            tool_use_id: ev.id,
            name: ev.name,
            reason: ev.reason,
            partial_input: headChars(ev.raw, 1000),
          });
          stripped.push(ev.name);
          break;
        case "usage":
          usage = { ...usage, ...numericUsage(ev.usage) };
          break;
        case "message_stop":
          stop = ev.stop_reason;
          break;
        case "retry":
          stats.retries++;
          eventLog.record("provider_retry", ctx.turnId, {
            step,
            attempt: ev.attempt,
            delay_ms: ev.delay_ms,
            status: ev.status,
            reason: ev.reason,
          });
          break;
        default:
          break;
      }
    }
    flush();
    turns.addUsage(ctx.turnId, usage);
    return { kind: "done", stop, messageSeq, malformed, stripped, usage };
  } catch (e) {
    turns.addUsage(ctx.turnId, usage);
    ctx.out.emit({ type: "step_abandoned", reason: e instanceof Error ? e.message : String(e) });
    const dropped = buffer.map((p) => (p.type === "text" ? p.text : "")).join("") + [...openText.values()].join("");
    if (dropped)
      eventLog.record("partial_text_dropped", ctx.turnId, { step, text: headChars(dropped, DROPPED_TEXT_CHARS) });
    if (messageSeq !== null) {
      const ids = history.toolUsesOf(messageSeq).map((t) => t.id);
      eventLog.record("partial_tool_use_persisted", ctx.turnId, { step, tool_use_ids: ids });
    }
    if (ctx.cancelled) return { kind: "cancelled" };
    const error: ErrorInfo =
      e instanceof ProviderFailure
        ? { code: e.error.code, message: e.error.message, retryable: e.error.retryable }
        : { code: "internal_error", message: String(e), retryable: true };
    eventLog.record("stream_error", ctx.turnId, { step, ...error });
    return { kind: "failed", error };
  }
}
