/**
 * Custom spans with Workers' native tracing (`tracing` from `cloudflare:workers`,
 * traces enabled in wrangler.toml): the turn (how it began and ended), each step, each provider request
 * (status, model, tokens, retries), each tool call (name, call id, kind,
 * is_error, duration), each compaction, and, from the session events, each
 * invalid call (with its validation errors) and each provider retry, so the
 * platform's OpenTelemetry export shows a turn's waterfall next to the
 * automatic fetch, D1 and Durable Object spans. Human approvals are spans too
 * (requested, granted, declined: approval id, call id, tool, reason; who decided, for the last two).
 *
 * Without the tracing API (older runtimes, Node) every helper runs its
 * callback with a no-op span. With it but traces off, `enterSpan` is the
 * runtime's own no-op path (bench/span-cost.mjs prints what that costs).
 */
import * as workers from "cloudflare:workers";
import { headChars } from "../storage/fit";

export type Attributes = Record<string, string | number | boolean | undefined>;

interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
}

const NOOP: SpanLike = { setAttributes: () => undefined };

/** False only in the span-cost bench (SWITCHBOARD_DEBUG_NO_SPANS): every helper then calls its function directly. */
let spansOn = true;

/** Turns the span helpers on or off for this isolate (set by the session object from its environment). */
export function setSpans(on: boolean): void {
  spansOn = on;
}

function api(): Tracing | undefined {
  return spansOn ? (workers as { tracing?: Tracing }).tracing : undefined;
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

/** The most characters a span attribute's text keeps: a span is for finding things; the event row keeps more. */
const SPAN_TEXT_CHARS = 4096;

/** `text` within SPAN_TEXT_CHARS: whole, or its head (cut on a character boundary) and how long it was. */
function spanText(text: string): string {
  if (text.length <= SPAN_TEXT_CHARS) return text;
  return `${headChars(text, SPAN_TEXT_CHARS)}… [${text.length} characters]`;
}

/**
 * Flat span attributes under `switchboard.`: numbers and booleans as they are, strings and the JSON of anything
 * else within `spanText`'s bound (event data carries what a model or a person wrote: error lists, reasons).
 */
export function attributesOf(data: Record<string, unknown>): Attributes {
  const attributes: Attributes = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    attributes[`switchboard.${k}`] =
      typeof v === "number" || typeof v === "boolean" ? v : spanText(typeof v === "string" ? v : JSON.stringify(v));
  }
  return attributes;
}

/**
 * Events that become spans of their own, carrying the event's data as attributes. Tool executions and
 * compactions are not here: their spans cover the work itself (execute.ts, compactor.ts) and carry the
 * event's attributes.
 */
const EVENT_SPANS: Readonly<Partial<Record<string, string>>> = {
  tool_call_invalid: "switchboard.tool_call_invalid",
  provider_retry: "switchboard.provider_retry",
  approval_requested: "switchboard.approval_requested",
  approval_granted: "switchboard.approval_granted",
  approval_declined: "switchboard.approval_declined",
};

/** A span for a recorded session event (invalid calls, provider retries, approvals); flat attributes, JSON for the rest. */
export function eventSpan(type: string, turnId: string | null, data: Record<string, unknown>): void {
  const name = EVENT_SPANS[type];
  if (!name || !api()) return;
  inSpan(name, { "switchboard.turn_id": turnId ?? undefined, ...attributesOf(data) }, () => undefined);
}
