/**
 * JSON values as the conversation model stores them (tool inputs, schemas, structured results). Imports nothing,
 * so the web client (web/src/from-history.ts) imports `resultValue` from here too.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** An object that is neither null nor an array (what JSON calls an object). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * JSON text with object keys sorted, so structurally equal values give equal texts whatever their key order.
 * `undefined` (a missing value, a property set to undefined) is written `null`. Approval signatures sign this
 * text (session/approval-signature.ts): its output for a given input must never change, or stored signatures stop verifying.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * A stored tool result's text as clients are given it: the UI stream's tool output (session/stream/ui-encoder.ts)
 * and the web client's call read back from the history (web/src/from-history.ts), which must agree so a reloaded call
 * shows what it showed live. JSON object or array text arrives as its value, so UIs need not parse it; any other
 * text (a JSON scalar, text that does not parse) stays the string.
 */
export function resultValue(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
