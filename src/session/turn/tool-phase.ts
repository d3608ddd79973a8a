import { flag } from "../../env";
import { runBuiltin } from "../../tools/builtins/run";
import type { ToolUsePart } from "../history/parts";
import type { TurnContext } from "./context";
import { executeCalls } from "./execute";
import { checkStructured, type OutputContract, SKIPPED, STRUCTURED_OUTPUT } from "./structured";

/** Runs server-side calls concurrently; returns true when client-executed calls remain. */
export async function runTools(
  ctx: TurnContext,
  calls: ToolUsePart[],
  malformed: ReadonlyMap<string, string>,
): Promise<boolean> {
  const { history, tools, agent, events } = ctx.d;
  const registry = tools.registry(agent);
  const loaded = new Set(tools.loaded.list());
  const loadedNow = (names: string[], via: string) => {
    if (names.length) events.record("tools_loaded", ctx.turnId, { names, via });
  };
  await executeCalls({
    calls,
    registry,
    loaded,
    malformed,
    runBuiltin: (call) => runBuiltin(call.name, call.input, { registry, loaded, index: () => tools.index(agent) }),
    lookup: (id) => history.resultValue(id),
    signal: ctx.signal,
    allowPrivate: flag(ctx.d.env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
    events,
    turnId: ctx.turnId,
    onResult: (call, outcome, load) => {
      if (ctx.cancelled) return;
      // The result and the loads it announces commit together: no tool is marked loaded without it.
      const added = ctx.tx(() => {
        history.storeResult(call.id, "resolved", outcome.content, outcome.is_error);
        return tools.loaded.add(load, call.name);
      });
      loadedNow(added, call.name);
      ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content: outcome.content, is_error: outcome.is_error });
    },
    missing: (name) => tools.missing(name),
    callMcp: (tool, input, isLoaded) =>
      tools.callMcp(agent, ctx.d.env, tool, input, { signal: ctx.signal, loaded: isLoaded }),
    onLoad: (call, load) =>
      loadedNow(
        ctx.tx(() => tools.loaded.add(load, call.name)),
        call.name,
      ),
  });
  return !history.openCallsSettled();
}

/**
 * structured_output is handled before the step's other calls. A valid call
 * delivers the turn's result: the others get synthesized "skipped" results,
 * so pairing still holds. An invalid one gets the validation errors (the
 * model may retry) and the other calls run normally.
 */
export function deliverStructured(
  ctx: TurnContext,
  calls: ToolUsePart[],
  contract: OutputContract,
): { delivered: true; value: unknown } | { delivered: false } {
  const call = calls.find((c) => c.name === STRUCTURED_OUTPUT);
  if (!call) return { delivered: false };
  const { history, turns, events } = ctx.d;
  const check = checkStructured(call, contract);
  if (!check.valid) {
    events.record("tool_call_invalid", ctx.turnId, {
      tool: STRUCTURED_OUTPUT,
      tool_use_id: call.id,
      errors: check.errors,
      arguments: JSON.stringify(call.input).slice(0, 1000),
    });
    ctx.tx(() => history.storeResult(call.id, "resolved", check.message, true));
    ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content: check.message, is_error: true });
    return { delivered: false };
  }
  const others = calls.filter((c) => c.id !== call.id);
  ctx.tx(() => {
    history.storeResult(call.id, "resolved", "structured output accepted", false);
    for (const o of others) history.storeResult(o.id, "skipped", SKIPPED, true);
    turns.setStructuredResult(ctx.turnId, check.value);
    history.closeOpenCalls({ turnId: ctx.turnId, reason: "no result was recorded" });
  });
  ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content: "structured output accepted", is_error: false });
  for (const o of others) ctx.out.emit({ type: "tool_output", tool_use_id: o.id, content: SKIPPED, is_error: true });
  ctx.out.emit({ type: "data", name: "structured-result", data: check.value });
  return { delivered: true, value: check.value };
}
