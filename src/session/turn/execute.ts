/**
 * Tool-call dispatch for one step (`executeCalls`): validation, `$tool` reference resolution, approval gates,
 * and running built-in, HTTP and MCP tools. Results go out through callbacks as they finish; the call resolves
 * once every tool call is answered or left pending, and rejects only when an error result cannot be recorded.
 */
import { BUILTIN_TOOL_NAMES } from "../../agents/types";
import { compileLenient, issueLines } from "../../json-schema/index";
import type { JsonObject } from "../../model/json";
import { resultText, type ToolResultContent, type ToolUsePart } from "../../model/message";
import type { EventLog } from "../../observability/event-log";
import { log } from "../../observability/log";
import { type Attributes, attributesOf, inSpan } from "../../observability/tracing";
import { headChars, jsonBytes } from "../../storage/fit";
import { CLIENT_INPUT_BUDGET_BYTES } from "../../storage/limits";
import { type BuiltinOutcome, schemaHint } from "../../tools/builtins/run";
import { callHttpTool, type ToolOutcome } from "../../tools/http-tool";
import { containsRefs, type Lookup, resolveRefs } from "../../tools/refs/index";
import { fullSchema, type ToolRegistry } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/types";

export interface ExecuteOptions {
  calls: ToolUsePart[];
  registry: ToolRegistry;
  /** Calls whose arguments were not a JSON object (id → parse problem). */
  malformed: ReadonlyMap<string, string>;
  /** Whether a deferred tool is loaded, asked as each call is checked. */
  isLoaded(name: string): boolean;
  runBuiltin(call: ToolUsePart): BuiltinOutcome;
  /** An earlier tool result of the session, for `$tool` references. */
  lookup: Lookup;
  signal: AbortSignal;
  allowPrivate: boolean;
  eventLog: EventLog;
  turnId: string;
  /** A server-side result; `load` names deferred tools it makes available. */
  onResult(call: ToolUsePart, outcome: ToolOutcome, load: string[]): void;
  /** A valid client-executed call, now the client's to answer (its result comes later); `load`: the deferred tool it loads. */
  onClient(call: ToolUsePart, load: string[]): void;
  /**
   * A direct call to a loaded deferred tool, told as the call is checked (before any later call of the step runs):
   * the step uses that tool, so it keeps it loaded (no load of the step unloads it).
   */
  keep?(name: string): void;
  /**
   * Whether a valid direct call to a deferred tool that is not loaded may load it, asked when its result is in (a
   * client call's: when it is handed over); without it, always. A call that may not runs without loading it.
   */
  mayLoad?(): boolean;
  /** For a name the registry lacks: the answer when it is a known tool whose MCP server is down, else null. */
  missing?(name: string): string | null;
  /** Runs an MCP tool (validated arguments); never throws except for cancellation of the turn. */
  callMcp?(tool: RegisteredTool, input: JsonObject, loaded: boolean): Promise<ToolOutcome>;
  /** A valid server-side call that must wait for a person's approval: it is requested and left pending. */
  approval?: {
    needed(call: ToolUsePart, tool: RegisteredTool): boolean;
    /** `input`: the arguments with their `$tool` references resolved (the call's own when it has none). */
    request(call: ToolUsePart, tool: RegisteredTool, input: JsonObject): Promise<void>;
  };
}

const isBuiltinName = (name: string): boolean => (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);

function withReference(content: ToolResultContent, name: string): ToolResultContent {
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  return [...blocks, { type: "tool_reference", tool_name: name }];
}

/**
 * Dispatches one step's tool calls. Every call is checked first (unknown
 * tool, arguments against the tool's full schema); an invalid call becomes an
 * is_error result the model can correct from plus a `tool_call_invalid`
 * event, never a silent failure. Server-side calls run concurrently and report
 * through `onResult` as each finishes (history orders them by tool_use
 * position later); client calls are left pending for /tool-results. A call
 * whose execution throws gets an is_error result; if even that cannot be
 * written, the rejection fails the turn (which aborts the other calls).
 */
export async function executeCalls(opts: ExecuteOptions): Promise<void> {
  const { eventLog, turnId } = opts;
  await Promise.all(
    opts.calls.map((call) =>
      inSpan("switchboard.tool_call", callAttributes(opts, call), (span) => {
        const started = Date.now();
        let answered: { is_error: boolean } | null = null;
        const onResult: ExecuteOptions["onResult"] = (c, outcome, load) => {
          answered = outcome;
          // The tool_executed event's figures: the tool's own time and, for HTTP tools, the status.
          span.setAttributes({ "switchboard.ms": outcome.ms, "switchboard.status": outcome.status });
          opts.onResult(c, outcome, load);
        };
        const own = { ...opts, onResult };
        const invalid = (c: ToolUsePart, errors: string[], message: string) => {
          eventLog.record("tool_call_invalid", turnId, {
            tool: c.name,
            tool_use_id: c.id,
            errors,
            arguments: headChars(JSON.stringify(c.input), 1000),
          });
          span.setAttributes({ "switchboard.invalid": true });
          onResult(c, { content: message, is_error: true, ms: 0 }, []);
        };
        return executeGuarded(own, call, invalid)
          .then((crashed) => {
            // The tool_executed event's `crashed`: the call threw, its result is the internal error.
            if (crashed) span.setAttributes({ "switchboard.crashed": true });
          })
          .finally(() => {
            const done = answered as { is_error: boolean } | null;
            span.setAttributes({
              "switchboard.outcome": done ? "result" : opts.signal.aborted ? "cancelled" : "pending",
              "switchboard.is_error": done?.is_error,
              "switchboard.duration_ms": Date.now() - started,
            });
          });
      }),
    ),
  );
}

/** What the tool call span starts with: the call and how it runs (builtin, http, mcp, client or unknown). */
function callAttributes(opts: ExecuteOptions, call: ToolUsePart): Attributes {
  const tool = opts.registry.get(call.name);
  const kind = !tool
    ? "unknown"
    : tool.source === "builtin" || tool.source === "mcp"
      ? tool.source
      : (tool.execution?.type ?? "unknown");
  return {
    "switchboard.turn_id": opts.turnId,
    // The name and id are the model's, of any length: capped as every span text is.
    ...attributesOf({ tool: call.name, tool_use_id: call.id }),
    "switchboard.kind": kind,
  };
}

async function executeGuarded(
  opts: ExecuteOptions,
  call: ToolUsePart,
  invalid: (call: ToolUsePart, errors: string[], message: string) => void,
): Promise<boolean> {
  const { eventLog, turnId } = opts;
  try {
    await executeOne(opts, call, invalid);
    return false;
  } catch (e) {
    // Cancellation of the turn: the runner answers the call synthetically.
    if (opts.signal.aborted) return false;
    // Any other throw (a bug, a failed write) is this call's error result; the other calls go on.
    log("error", "tool_crashed", { tool: call.name, tool_use_id: call.id, error: String(e) });
    eventLog.record("tool_executed", turnId, {
      tool: call.name,
      tool_use_id: call.id,
      is_error: true,
      crashed: true,
    });
    opts.onResult(call, { content: `tool "${call.name}" failed with an internal error`, is_error: true, ms: 0 }, []);
    return true;
  }
}

async function executeOne(
  opts: ExecuteOptions,
  call: ToolUsePart,
  invalid: (call: ToolUsePart, errors: string[], message: string) => void,
): Promise<void> {
  const { registry, eventLog, turnId } = opts;
  const tool = registry.get(call.name);
  const down = tool ? null : (opts.missing?.(call.name) ?? null);
  if (down !== null) return invalid(call, ["the tool's MCP server is disconnected"], down);
  if (!tool) {
    const names = [...registry.core(), ...registry.builtins].map((t) => t.name).slice(0, 50);
    const hint = registry.hasDeferred() ? " More tools can be found with tool_search." : "";
    const available = `Available tools: ${names.join(", ") || "(none)"}.${hint}`;
    // A built-in this session does not offer (e.g. tool_search with nothing deferred) still gets an answer.
    if (isBuiltinName(call.name)) {
      return invalid(
        call,
        [`built-in tool "${call.name}" is not offered in this session`],
        `"${call.name}" is a built-in tool that is not offered in this session, so it was not run. ${available}`,
      );
    }
    return invalid(call, [`unknown tool "${call.name}"`], `unknown tool "${call.name}". ${available}`);
  }
  // Read once, before anything that waits: a later call of the step (a built-in's load) may unload the tool.
  const notLoaded = tool.deferred && !opts.isLoaded(tool.name);
  // Any call to it uses it, one refused below too (the model calls it again): it stays in the next request's tools.
  if (tool.deferred && !notLoaded) opts.keep?.(tool.name);
  const bad = opts.malformed.get(call.id);
  if (bad !== undefined) {
    return invalid(
      call,
      [`arguments are not a JSON object: ${bad}`],
      `The arguments of this call were not a valid JSON object (${bad}). Call "${call.name}" again with a JSON object.`,
    );
  }
  if (tool.source === "builtin") {
    const out = opts.runBuiltin(call);
    // Bad input to a built-in is an invalid call like any other: recorded, its errors in the result.
    if (out.invalid) return invalid(call, out.invalid, resultText(out.content));
    return opts.onResult(call, { content: out.content, is_error: out.is_error, ms: 0 }, out.load);
  }
  const execution = tool.execution;
  const mcp = tool.source === "mcp" ? opts.callMcp : undefined;
  const client = !mcp && (!execution || execution.type === "client");
  let input = call.input;
  // The client receives a call's arguments as the model wrote them: a reference would reach it unresolved.
  if (client && containsRefs(input)) {
    return invalid(
      call,
      ["$tool references are resolved only in the arguments of server-executed tools"],
      `"${tool.name}" runs in the client, which receives the arguments as written: pass the values themselves, not {"$tool": …} references.`,
    );
  }
  if (containsRefs(input)) {
    const resolved = resolveRefs(input, opts.lookup);
    if (!resolved.ok) {
      return invalid(call, [resolved.error], `Could not resolve a reference in the arguments: ${resolved.error}`);
    }
    input = resolved.value as JsonObject;
  }
  // Leniently: agent tool schemas were checked strictly when the agent was saved (agents/normalize.ts), MCP
  // schemas are not ours.
  const compiled = compileLenient(fullSchema(tool));
  const errors = compiled.ok
    ? issueLines(compiled.schema.validate(input))
    : [`the tool's own schema is invalid: ${compiled.error}`];
  if (errors.length > 0) {
    const resolvedNote = input !== call.input ? " (after resolving references)" : "";
    // Name only the built-ins this agent offers (select_tools and tool_info can be turned off).
    const select = opts.registry.get("select_tools")?.source === "builtin";
    const how = notLoaded
      ? `Tool "${tool.name}" exists but is not loaded, and these arguments do not match its schema. ` +
        `Load it with tool_search (query: "select:${tool.name}")${select ? ` or select_tools(names: ["${tool.name}"])` : ""}, then call it again.`
      : `Invalid arguments for "${tool.name}"${resolvedNote}.`;
    const hint = schemaHint(opts.registry, tool.name).trim();
    return invalid(call, errors, `${how}\n${errors.map((e) => `- ${e}`).join("\n")}${hint ? `\n${hint}` : ""}`);
  }
  // A valid call to a deferred tool that was not loaded runs and loads it (if it still may once it is answered):
  // never an opaque failure.
  const loads = (): string[] => (notLoaded && (opts.mayLoad?.() ?? true) ? [tool.name] : []);
  if (client) {
    // Its stream frame could not hold it whole (it would be cut, and the client would run the cut input).
    const bytes = jsonBytes(input);
    if (bytes > CLIENT_INPUT_BUDGET_BYTES) {
      const why = `the arguments are ${bytes} bytes of JSON, over the ${CLIENT_INPUT_BUDGET_BYTES} a client tool's call may carry`;
      return invalid(call, [why], `Invalid arguments for "${tool.name}": ${why}. Send less in one call.`);
    }
    return opts.onClient(call, loads());
  }
  // Checked only after validation: a person is never asked about a call that could not run anyway.
  if (opts.approval?.needed(call, tool)) return opts.approval.request(call, tool, input);
  try {
    const outcome = mcp
      ? await mcp(tool, input, !notLoaded)
      : await callHttpTool({
          url: execution?.type === "http" ? execution.url : "",
          timeoutMs: execution?.type === "http" ? execution.timeout_ms : undefined,
          toolUseId: call.id,
          name: call.name,
          input,
          signal: opts.signal,
          allowPrivate: opts.allowPrivate,
        });
    eventLog.record("tool_executed", turnId, {
      tool: call.name,
      tool_use_id: call.id,
      is_error: outcome.is_error,
      ms: outcome.ms,
      ...(outcome.status ? { status: outcome.status } : {}),
    });
    const load = loads();
    const content = load.length ? withReference(outcome.content, tool.name) : outcome.content;
    opts.onResult(call, { ...outcome, content }, load);
  } catch (e) {
    // Cancellation of the turn: the runner synthesizes the result.
    if (opts.signal.aborted) return;
    throw e;
  }
}
