/**
 * Narrowing helpers for provider JSON. Wire payloads are untrusted `unknown`;
 * these keep the parsers free of casts while tolerating fields we do not know.
 */
import type { JsonObject } from "../model/json";
import { ProviderFailure } from "./types";

export type Obj = Record<string, unknown>;

export function asObj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

export function asStr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asNum(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function asArr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** The provider broke its protocol (a malformed or out-of-order event): retryable, as a new attempt may not. */
export function badResponse(message: string): ProviderFailure {
  return new ProviderFailure({ code: "provider_bad_response", message, retryable: true });
}

/** Parses one SSE data payload; a payload that is not JSON means the provider broke its protocol. */
export function parseEventData(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw badResponse(`provider sent a stream event that is not JSON: ${data.slice(0, 200)}`);
  }
}

type ToolInputResult = { ok: true; input: JsonObject } | { ok: false; reason: string };

/**
 * Tool arguments arrive as concatenated JSON fragments. Anthropic streams `""`
 * for a call without arguments, so empty text stands for `{}`; anything else
 * must be a complete JSON object, every number in it finite, or the call is unusable.
 */
export function parseToolInput(raw: string): ToolInputResult {
  if (raw.trim() === "") return { ok: true, input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch (err) {
    return { ok: false, reason: `tool input is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const obj = asObj(value);
  if (!obj) return { ok: false, reason: "tool input is not a JSON object" };
  // JSON.parse reads a literal too large for a double (1e400) as ±Infinity, which passes `type: number` and
  // becomes null once stored or sent on: the call's arguments would not be what the model wrote.
  if (hasNonFinite(obj)) return { ok: false, reason: "tool input has a number too large to represent (over ±1.8e308)" };
  return { ok: true, input: obj as JsonObject };
}

function hasNonFinite(value: unknown): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value && typeof value === "object") return Object.values(value).some(hasNonFinite);
  return false;
}
