/**
 * The tool phase of a turn step: `runTools` executes the step's server-side calls (built-ins, HTTP, MCP,
 * approval gates) and stores each result with the tools it loads in one transaction, writing nothing once the
 * turn is aborted; `answerStructured` answers `structured_output` calls before any other call runs.
 */
import { flag } from "../../env-values";
import type { ToolUsePart } from "../../model/message";
import { attributesOf, inSpan } from "../../observability/tracing";
import { getAdapter } from "../../providers/index";
import { headChars } from "../../storage/fit";
import { runBuiltin } from "../../tools/builtins/run";
import { projectionFor } from "../../tools/disclosure";
import { containsRefs } from "../../tools/refs/index";
import { boundResultContent } from "../history/truncate";
import { approvalGate } from "./approval-gate";
import type { TurnContext } from "./context";
import { executeCalls } from "./execute";
import { checkStructured, NOT_OFFERED, type OutputContract, SKIPPED, STRUCTURED_OUTPUT } from "./structured";

/**
 * Runs server-side calls concurrently; returns true when calls remain open
 * (client-executed, or waiting for approval). `approved`: calls of an earlier
 * segment a person approved, run now without asking again.
 */
export async function runTools(
  ctx: TurnContext,
  calls: ToolUsePart[],
  malformed: ReadonlyMap<string, string>,
  approved: ReadonlySet<string> = new Set(),
): Promise<boolean> {
  const { history, tools, agent, eventLog } = ctx.deps;
  const registry = tools.registry(agent);
  const room = tools.loadRoom(agent);
  // What this step's calls have loaded, called directly or answered as there (loaded, already available): no load
  // of the step unloads them, and a later call of the step loads only into the room they leave, so no answer of the
  // step says "loaded" or "already available" for a tool the step then unloads, and no tool the step called is
  // missing from the next request.
  const kept = new Set<string>();
  const loadInStep = (load: string[], via: string) => {
    const loads = tools.load(agent, load, via, [...kept]);
    for (const n of load) kept.add(n);
    return loads;
  };
  // The kept tools still loaded: the room they take.
  const keptLoaded = () => {
    const now = new Set(tools.loaded.list());
    return [...kept].filter((n) => now.has(n)).length;
  };
  const loadedNow = ({ added, unloaded }: { added: string[]; unloaded: string[] }, via: string) => {
    if (added.length) eventLog.record("tools_loaded", ctx.turnId, { names: added, via });
    if (unloaded.length) eventLog.record("tools_unloaded", ctx.turnId, { names: unloaded, reason: "tools_limit" });
  };
  await executeCalls({
    calls,
    registry,
    // Read at each call: an earlier call of the step may have loaded a tool, or made room by unloading one.
    isLoaded: (name) => tools.loaded.list().includes(name),
    keep: (name) => kept.add(name),
    malformed,
    runBuiltin: (call) => {
      const out = runBuiltin(call.name, call.input, {
        registry,
        loaded: new Set(tools.loaded.list()),
        index: () => tools.index(agent),
        ...(room === undefined ? {} : { room, kept }),
      });
      for (const n of out.keep ?? []) kept.add(n);
      return out;
    },
    lookup: (id) => {
      const found = history.referencedValue(id);
      if (found.ok || found.reason !== "unknown") return found;
      // Another provider's id (Kimi's `functions.x:0`) reaches this one in the form its wire accepts (Anthropic's),
      // and the model may cite it so: the call it names.
      const stored = history.callIdAs(id, getAdapter(agent.model.provider).wireCallId);
      return stored === null ? found : history.referencedValue(stored);
    },
    signal: ctx.signal,
    allowPrivate: flag(ctx.deps.env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
    eventLog: eventLog,
    turnId: ctx.turnId,
    onResult: (call, outcome, load) => {
      // A cancelled or failed turn has stopped: a call that still finishes writes nothing.
      if (ctx.signal.aborted) return;
      // The result and the loads it announces commit together: no tool is marked loaded without it. Marked as
      // told (just below), so a segment resuming the step does not tell a client tool's call answered here again.
      const loads = ctx.tx(() =>
        history.storeResult(call.id, "resolved", outcome.content, outcome.is_error, {
          announced: true,
          cut: outcome.cut,
        })
          ? loadInStep(load, call.name)
          : null,
      );
      // Already answered (a fallback after a crash that followed the write): the stream has that answer.
      if (!loads) return;
      // The stream carries what was stored (the same cap and truncation marker), before anything that could throw.
      ctx.out.emit({
        type: "tool_output",
        tool_use_id: call.id,
        content: boundResultContent(outcome.content),
        is_error: outcome.is_error,
        ...(approved.has(call.id) ? { earlier: true } : {}),
      });
      loadedNow(loads, call.name);
    },
    // A direct call answered once the tools the step keeps fill the room runs without loading its tool: loading it
    // would unload one that a call of the step has just answered "loaded" or "already available".
    mayLoad: () => room === undefined || keptLoaded() < room,
    missing: (name) => tools.missing(name),
    callMcp: (tool, input, isLoaded) =>
      tools.callMcp(agent, ctx.deps.env, tool, input, { signal: ctx.signal, loaded: isLoaded }),
    approval: approvalGate(ctx, approved),
    onClient: (call, load) => {
      // A client call to a deferred tool loads it where its schema then reaches the model by itself (tools[] or a
      // declaration). On Anthropic only a tool_reference in the call's result would, and the client writes that
      // result: marked loaded there, the tool would stay unreferenced, and select_tools would call it "already
      // available" without ever showing its schema. So there it stays unloaded until something loads it.
      if (load.length && projectionFor(agent.model) !== "anthropic") {
        loadedNow(
          ctx.tx(() => loadInStep(load, call.name)),
          call.name,
        );
      }
      // Only now, its checks passed, is the call the client's to run: the stream held its input back until here. A
      // stopped turn hands nothing over (the call's result is written by the turn's end).
      if (!ctx.signal.aborted) ctx.out.emit({ type: "tool_open", tool_use_id: call.id });
    },
  });
  return !history.openCallsSettled();
}

/**
 * structured_output calls are answered before the step's other calls, every
 * one of them, so a built-in never leaves the turn waiting. Without a
 * json_schema on the turn (a model copying an earlier turn) each gets an
 * is_error result saying so. With one, calls are checked in order: an invalid
 * call gets the validation errors (the model may retry); the first valid call
 * delivers the turn's result and every other call of the step, later
 * structured_output calls included, gets a synthesized "skipped" result, so
 * pairing still holds. Without a valid call the other calls run normally.
 */
export function answerStructured(
  ctx: TurnContext,
  calls: ToolUsePart[],
  contract: OutputContract | null,
  malformed: ReadonlyMap<string, string>,
): { delivered: boolean } {
  const { history, turns, eventLog } = ctx.deps;
  const answered = new Set<string>();
  const refuse = (call: ToolUsePart, errors: string[], message: string) => {
    eventLog.record("tool_call_invalid", ctx.turnId, {
      tool: STRUCTURED_OUTPUT,
      tool_use_id: call.id,
      errors,
      arguments: headChars(JSON.stringify(call.input), 1000),
    });
    ctx.tx(() => history.storeResult(call.id, "resolved", message, true));
    ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content: message, is_error: true });
    answered.add(call.id);
  };
  // One call answered: false when refused (an is_error result the model may correct from), true when delivered.
  const answer = (call: ToolUsePart): boolean => {
    if (!contract) {
      refuse(call, ["structured_output is not offered in this turn"], NOT_OFFERED);
      return false;
    }
    const bad = malformed.get(call.id);
    if (bad !== undefined) {
      refuse(
        call,
        [`arguments are not a JSON object: ${bad}`],
        `The arguments of this call were not a valid JSON object (${bad}). Call structured_output again with a JSON object.`,
      );
      return false;
    }
    // The result is the arguments as written: a reference would be delivered as a literal {"$tool": …} object.
    if (containsRefs(call.input)) {
      refuse(
        call,
        ["$tool references are resolved only in the arguments of server-executed tools"],
        'structured_output delivers its arguments as written: put the values themselves in it, not {"$tool": …} references.',
      );
      return false;
    }
    const check = checkStructured(call, contract);
    if (!check.ok) {
      refuse(call, check.errors, check.message);
      return false;
    }
    const others = calls.filter((c) => c.id !== call.id && !answered.has(c.id));
    ctx.tx(() => {
      history.storeResult(call.id, "resolved", "structured output accepted", false);
      for (const o of others) history.storeResult(o.id, "skipped", SKIPPED, true);
      turns.setStructuredResult(ctx.turnId, check.value);
      history.closeOpenCalls({ turnId: ctx.turnId, reason: "no result was recorded" });
    });
    ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content: "structured output accepted", is_error: false });
    for (const o of others) ctx.out.emit({ type: "tool_output", tool_use_id: o.id, content: SKIPPED, is_error: true });
    ctx.out.emit({ type: "data", name: "structured-result", data: check.value });
    return true;
  };
  for (const call of calls) {
    if (call.name !== STRUCTURED_OUTPUT) continue;
    // A tool_call span like any other call's: a refused call's invalid-call span opens inside it.
    const attributes = {
      "switchboard.turn_id": ctx.turnId,
      "switchboard.tool": STRUCTURED_OUTPUT,
      // The model's id, of any length: capped as every span text is.
      ...attributesOf({ tool_use_id: call.id }),
      "switchboard.kind": "builtin",
    };
    const delivered = inSpan("switchboard.tool_call", attributes, (span) => {
      const ok = answer(call);
      span.setAttributes({
        "switchboard.outcome": "result",
        "switchboard.is_error": !ok,
        ...(ok ? {} : { "switchboard.invalid": true }),
      });
      return ok;
    });
    if (delivered) return { delivered: true };
  }
  return { delivered: false };
}
