/**
 * The summary request of a compaction: one provider request, streamed to its end, whose text is the
 * summary. It runs in its own `switchboard.provider_request` span (purpose `summary`).
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import type { CompactionPart, Message, Part, Role, ToolDeclaration } from "../../model/message";
import { attributesOf, inSpan } from "../../observability/tracing";
import { endpointFromEnv, getAdapter, policyFor } from "../../providers/index";
import { ProviderFailure, type StepRequest } from "../../providers/types";
import { OPAQUE_CONTEXT_NOTE, SUMMARY_SYSTEM, TRUNCATED_NOTE } from "./transcript";

/** The tools and system of the request a compaction was triggered by: the summary request reuses them. */
export interface RequestPrefix {
  system: string;
  tools: ToolDeclaration[];
}

/**
 * One summary request. With the triggering request's prefix it sends exactly that system and
 * tools[] (a prompt-cache hit on the provider's side) and puts our summariser instruction in the
 * user message; without one, our own system and no tools at all. Its only message is plain text,
 * so invariant P holds trivially. An answer the provider stopped by refusal (or content filter), or one
 * that calls a tool, is no summary: it fails as a cut stream does, and nothing is stored. `context` is a compaction
 * the provider wrote whose content only it can read (OpenAI Responses' encrypted item): it goes
 * first, so what it holds is summarised too rather than lost.
 */
export async function requestSummary(
  agent: AgentConfig,
  env: Env,
  prompt: string,
  prefix: RequestPrefix | undefined,
  opts: { signal: AbortSignal; turnId: string | null; context?: CompactionPart | undefined },
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const { signal, context } = opts;
  const text = `${prefix ? `${SUMMARY_SYSTEM}\n\n` : ""}${context ? `${OPAQUE_CONTEXT_NOTE}\n\n` : ""}${prompt}`;
  const message = (role: Role, parts: Part[]): Message => ({
    seq: 0,
    role,
    origin: "system",
    turn_id: null,
    parts,
    created_at: "",
  });
  const endpoint = endpointFromEnv(agent.model.provider, env);
  const req: StepRequest = {
    model: agent.model,
    baseUrl: endpoint.baseUrl,
    system: prefix ? prefix.system : SUMMARY_SYSTEM,
    messages: [...(context ? [message("assistant", [context])] : []), message("user", [{ type: "text", text }])],
    tools: prefix ? prefix.tools : [],
    // The transcript is sent once: only the prefix it shares with the triggering request is worth caching.
    cacheMessages: false,
  };
  const attributes = {
    "switchboard.turn_id": opts.turnId ?? undefined,
    "switchboard.purpose": "summary",
    "switchboard.provider": agent.model.provider,
    "switchboard.model": agent.model.name,
  };
  return inSpan("switchboard.provider_request", attributes, async (span) => {
    const adapter = getAdapter(agent.model.provider);
    let text = "";
    let complete = false;
    let truncated = false;
    let refused = false;
    // The model started a tool call: its text leads up to that call ("Let me look the order up first."), not a summary.
    let called = false;
    let retries = 0;
    let usage: Record<string, unknown> = {};
    // The span's status in a step span's words: ok, the provider error's code, or cancelled.
    let status = "ok";
    const answer = async (): Promise<{ ok: true; text: string } | { ok: false; reason: string }> => {
      try {
        for await (const ev of adapter.stream(req, endpoint, policyFor(env), signal)) {
          if (ev.type === "block_stop" && ev.part.type === "text") text += ev.part.text;
          else if (ev.type === "block_start" && ev.kind === "tool_use") called = true;
          else if (ev.type === "message_stop") {
            complete = true;
            truncated = ev.stop_reason === "max_tokens";
            refused = ev.stop_reason === "refusal";
            called ||= ev.stop_reason === "tool_use";
          } else if (ev.type === "retry") retries++;
          else if (ev.type === "usage") usage = { ...usage, ...ev.usage };
        }
      } catch (e) {
        status = signal.aborted ? "cancelled" : e instanceof ProviderFailure ? e.error.code : "failed";
        return { ok: false, reason: e instanceof ProviderFailure ? e.error.message : String(e) };
      }
      // A stream that ended without its stop event was cut: its text may be half a summary.
      if (!complete) {
        status = signal.aborted ? "cancelled" : "provider_stream_cut";
        return { ok: false, reason: "the summary stream ended early" };
      }
      // Text a refusal stopped, or that ends on a tool call, would replace the history it was asked to summarise.
      if (refused) {
        status = "refusal";
        return { ok: false, reason: "the summary request was refused (stop reason refusal)" };
      }
      if (called) {
        status = "tool_call";
        return { ok: false, reason: "the summary request was answered with a tool call, not a summary" };
      }
      if (!text.trim()) {
        status = "empty";
        return { ok: false, reason: "the summary request returned no text" };
      }
      // Cut at the output limit: kept (refusing it could leave a session over its window with no way to shrink),
      // but it says so, for the model that reads it.
      return { ok: true, text: truncated ? `${text.trim()}\n\n${TRUNCATED_NOTE}` : text.trim() };
    };
    const out = await answer();
    span.setAttributes({
      "switchboard.status": status,
      "switchboard.retries": retries,
      "switchboard.truncated": truncated,
      ...attributesOf(usage),
      ...(out.ok ? {} : attributesOf({ error: out.reason })),
    });
    return out;
  });
}
