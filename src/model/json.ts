/** JSON values as the conversation model stores them (tool inputs, schemas, structured results). */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** An object that is neither null nor an array (what JSON calls an object). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * JSON text with object keys sorted, so structurally equal values give equal texts whatever their key order.
 * `undefined` (a missing value, a property set to undefined) is written `null`. Approval signatures sign this
 * text (session/approvals.ts): its output for a given input must never change, or stored signatures stop verifying.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
