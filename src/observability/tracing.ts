/**
 * Custom spans with Workers' native tracing (`tracing` from `cloudflare:workers`,
 * traces enabled in wrangler.toml): the turn, each step (one provider request
 * with its retries) and, from the session events, each executed tool call, each
 * invalid call (with its validation errors) and each compaction, so the
 * platform's OpenTelemetry export shows a turn's waterfall next to the
 * automatic fetch, D1 and Durable Object spans. Human approvals are spans too
 * (requested, granted, declined: approval id, call id, tool, who, reason).
 *
 * Without the tracing API (older runtimes, Node) every helper runs its
 * callback with a no-op span. With it but traces off, `enterSpan` is the
 * runtime's own no-op path.
 */
import * as workers from "cloudflare:workers";
import type { SessionEventType } from "./events";

type Attributes = Record<string, string | number | boolean | undefined>;

interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
}

const NOOP: SpanLike = { setAttributes: () => undefined };

function api(): Tracing | undefined {
  return (workers as { tracing?: Tracing }).tracing;
}

/** Runs `fn` inside a span named `name`; a returned promise ends the span when it settles. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: SpanLike) => T): T {
  const t = api();
  if (!t) return fn(NOOP);
  return t.enterSpan(name, (span) => {
    span.setAttributes(attributes);
    return fn(span);
  });
}

/** Events that become spans of their own, carrying the event's data as attributes. */
const EVENT_SPANS: Partial<Record<SessionEventType, string>> = {
  tool_executed: "switchboard.tool_call",
  tool_call_invalid: "switchboard.tool_call_invalid",
  provider_retry: "switchboard.provider_retry",
  approval_requested: "switchboard.approval_requested",
  approval_granted: "switchboard.approval_granted",
  approval_declined: "switchboard.approval_declined",
};

/** A span for a recorded session event (tool calls, invalid calls, approvals, compactions); flat attributes, JSON for the rest. */
export function eventSpan(type: SessionEventType, turnId: string | null, data: Record<string, unknown>): void {
  const name = EVENT_SPANS[type] ?? (type.startsWith("compaction") ? `switchboard.${type}` : null);
  if (!name || !api()) return;
  const attributes: Attributes = { "switchboard.turn_id": turnId ?? undefined };
  for (const [k, v] of Object.entries(data)) {
    attributes[`switchboard.${k}`] =
      typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : JSON.stringify(v);
  }
  inSpan(name, attributes, () => undefined);
}
