import type { AgentConfig } from "../../agents/types";
import type { EventLog } from "../../observability/events";
import { callHttpTool, type ToolOutcome } from "../../tools/http-tool";
import type { ToolUsePart } from "../history/parts";

/**
 * Dispatches one step's tool calls. Server-side calls run concurrently and
 * report through `onResult` as each finishes (history orders them by
 * tool_use position later); client calls are left pending for /tool-results.
 */
export async function executeCalls(opts: {
  calls: ToolUsePart[];
  agent: AgentConfig;
  signal: AbortSignal;
  allowPrivate: boolean;
  events: EventLog;
  turnId: string;
  onResult(call: ToolUsePart, outcome: ToolOutcome): void;
}): Promise<void> {
  const { agent, events, turnId } = opts;
  await Promise.all(
    opts.calls.map(async (call) => {
      const tool = agent.tools.find((t) => t.name === call.name);
      if (!tool) {
        const available = agent.tools.map((t) => t.name).slice(0, 50);
        const message = `unknown tool "${call.name}". Available tools: ${available.join(", ") || "(none)"}`;
        events.record("tool_call_invalid", turnId, {
          tool: call.name,
          tool_use_id: call.id,
          errors: [message],
          arguments: JSON.stringify(call.input).slice(0, 1000),
        });
        opts.onResult(call, { content: message, is_error: true, ms: 0 });
        return;
      }
      if (tool.execution.type === "client") return;
      try {
        const outcome = await callHttpTool({
          url: tool.execution.url,
          timeoutMs: tool.execution.timeout_ms,
          toolUseId: call.id,
          name: call.name,
          input: call.input,
          signal: opts.signal,
          allowPrivate: opts.allowPrivate,
        });
        events.record("tool_executed", turnId, {
          tool: call.name,
          tool_use_id: call.id,
          is_error: outcome.is_error,
          ms: outcome.ms,
          ...(outcome.status ? { status: outcome.status } : {}),
        });
        opts.onResult(call, outcome);
      } catch {
        // Only cancellation of the turn lands here; the runner synthesizes the result.
      }
    }),
  );
}
