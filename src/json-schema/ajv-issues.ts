/**
 * Translates the errors of Ajv's generated validators into engine-neutral issue drafts
 * (`reduce-issues.ts`), phrased the way `cfworker-issues.ts` phrases the run-time engine's errors:
 * both engines speak with one voice. Ajv's errors are structured (`params`), so nothing is parsed.
 */
import type { ErrorObject } from "ajv";
import { duplicates, type IssueDraft, show, showChoices, showKey, valueAt } from "./reduce-issues";

/** Ajv errors that only say a subschema below failed; kept only when nothing more specific explains it. */
const WRAPPERS = new Set(["anyOf", "oneOf", "allOf", "if", "contains", "propertyNames", "dependentSchemas"]);

function count(value: unknown): number {
  if (typeof value === "string") return [...value].length;
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === "object") return Object.keys(value).length;
  return 0;
}

const BOUNDS: Record<string, string> = {
  minimum: "at least",
  maximum: "at most",
  exclusiveMinimum: "greater than",
  exclusiveMaximum: "less than",
};

function describe(e: ErrorObject, value: unknown): Omit<IssueDraft, "wrapper" | "keyword"> {
  const pointer = e.instancePath;
  const got = valueAt(value, pointer);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type": {
      const t = p.type;
      return { pointer, message: "", types: Array.isArray(t) ? t.map(String) : String(t).split(",") };
    }
    case "required":
      return { pointer, message: `missing required property "${showKey(String(p.missingProperty))}"` };
    case "enum":
      return {
        pointer,
        message: `must be one of ${showChoices((p.allowedValues as unknown[]) ?? [])} (got ${show(got, 40)})`,
      };
    case "const":
      return { pointer, message: `must equal ${show(p.allowedValue)}` };
    case "additionalProperties":
    case "unevaluatedProperties": {
      const key = String(p.additionalProperty ?? p.unevaluatedProperty);
      return { pointer, message: `property "${showKey(key)}" is not allowed` };
    }
    case "false schema":
      return { pointer, message: "no value is allowed here" };
    case "oneOf":
      return {
        pointer,
        message: p.passingSchemas
          ? "matches more than one of the alternatives (exactly one must match)"
          : "matches none of the allowed alternatives",
      };
    case "anyOf":
      return { pointer, message: "matches none of the allowed alternatives" };
    case "not":
      return { pointer, message: "matches a schema it must not match" };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { pointer, message: `must be ${BOUNDS[e.keyword]} ${String(p.limit)} (got ${show(got, 40)})` };
    case "minLength":
      return { pointer, message: `must be at least ${String(p.limit)} characters long (got ${count(got)})` };
    case "maxLength":
      return { pointer, message: `must be at most ${String(p.limit)} characters long (got ${count(got)})` };
    case "minItems":
      return { pointer, message: `must have at least ${String(p.limit)} items (got ${count(got)})` };
    case "maxItems":
      return { pointer, message: `must have at most ${String(p.limit)} items (got ${count(got)})` };
    case "minProperties":
      return { pointer, message: `must have at least ${String(p.limit)} properties (got ${count(got)})` };
    case "maxProperties":
      return { pointer, message: `must have at most ${String(p.limit)} properties (got ${count(got)})` };
    case "uniqueItems":
      return { pointer, message: duplicates(Number(p.i), Number(p.j)) };
    case "pattern":
      return { pointer, message: `does not match the required pattern (got ${show(got, 40)})` };
    case "format":
      return { pointer, message: `must be a valid ${String(p.format)} string` };
    case "items":
    case "additionalItems":
    case "unevaluatedItems":
      return {
        pointer,
        message: `item ${String(p.limit)} is not allowed (too many items)`,
      };
    default:
      return { pointer, message: e.message ?? `fails "${e.keyword}"` };
  }
}

/** Every Ajv error as a draft, in the validator's order. */
export function ajvIssues(errors: readonly ErrorObject[], value: unknown): IssueDraft[] {
  return errors.map((e) => ({ ...describe(e, value), keyword: e.keyword, wrapper: WRAPPERS.has(e.keyword) }));
}
