/**
 * Chained arguments: any value inside a tool call's arguments may be `{"$tool": id, "$path": "a.b[0]"}`,
 * standing for a value taken from an earlier tool result of the same session.
 */
import { canonical, isPlainObject } from "../../model/json";

export interface ToolRef {
  $tool: string;
  $path?: string;
}

/** What a sentinel looks like; advertised schemas accept it wherever a value is expected. */
export const REF_SCHEMA = Object.freeze({
  type: "object",
  properties: Object.freeze({
    $tool: Object.freeze({ type: "string" }),
    $path: Object.freeze({ type: "string" }),
  }),
  required: Object.freeze(["$tool"]),
  additionalProperties: false,
  description: "Reference to an earlier tool result",
});

const REF_CANONICAL = canonical(REF_SCHEMA);

/** True for REF_SCHEMA itself, in any key order (schemas may pass through stores that reorder keys). */
export function isRefSchema(node: unknown): boolean {
  return isPlainObject(node) && node.additionalProperties === false && canonical(node) === REF_CANONICAL;
}

/** For the system prompt's section on tools. */
export const REFS_PROMPT = [
  'To pass a value from an earlier tool result, use {"$tool": "<tool_use id>", "$path": "a.b[0]"} in place of any argument value; it is replaced by that value before the tool runs.',
  'Omit "$path" to pass the whole result. Paths use dots for keys, [n] for array items and ["key"] for keys with dots or spaces.',
  "Only results that finished without error can be referenced, and the arguments object itself cannot be a reference.",
].join("\n");

type RefShape = { kind: "none" } | { kind: "ref"; ref: ToolRef } | { kind: "malformed"; problem: string };

/**
 * Classifies an object. Anything with an own "$tool" key is meant as a reference, so a malformed one
 * is reported rather than passed on silently as data.
 */
export function refShape(node: Record<string, unknown>): RefShape {
  if (!Object.hasOwn(node, "$tool")) return { kind: "none" };
  const extra = Object.keys(node).filter((k) => k !== "$tool" && k !== "$path");
  if (extra.length > 0) {
    return {
      kind: "malformed",
      problem: `has other keys (${extra.slice(0, 5).join(", ")}) besides "$tool" and "$path"`,
    };
  }
  const { $tool, $path } = node;
  if (typeof $tool !== "string" || $tool === "") return { kind: "malformed", problem: '"$tool" must be a tool_use id' };
  if ($path !== undefined && typeof $path !== "string")
    return { kind: "malformed", problem: '"$path" must be a string' };
  return { kind: "ref", ref: $path === undefined ? { $tool } : { $tool, $path } };
}

/** Whether any value below the arguments object looks like a reference (the object itself never is one). */
export function containsRefs(args: unknown): boolean {
  const stack: unknown[] = isPlainObject(args) ? Object.values(args) : Array.isArray(args) ? [...args] : [];
  while (stack.length > 0) {
    const v = stack.pop();
    if (isPlainObject(v) && Object.hasOwn(v, "$tool")) return true;
    // A loop, not push(...spread): a spread of a huge array can exceed the engine's argument limit.
    if (typeof v === "object" && v !== null) for (const child of Object.values(v)) stack.push(child);
  }
  return false;
}
