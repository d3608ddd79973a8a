/**
 * Translates @cfworker/json-schema's output units into engine-neutral issue drafts (`reduce-issues.ts`).
 * Its messages are English sentences, so the numbers and names are read back out of them and rephrased
 * the way `ajv-issues.ts` phrases Ajv's errors: both engines speak with one voice.
 */
import type { OutputUnit } from "@cfworker/json-schema";
import { duplicates, type IssueDraft, show, showChoices, showKey, valueAt } from "./reduce-issues";

/**
 * Errors that only say "something below me failed". They are dropped when a more specific error at
 * the same place or below explains the failure, and kept otherwise (e.g. oneOf matching twice).
 */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "allOf",
  "anyOf",
  "oneOf",
  "$ref",
  "$recursiveRef",
  "dependentSchemas",
  "dependencies",
  "then",
  "else",
]);

/** The validator's locations are "#/a/b" with URI-encoded segments; ours are plain JSON pointers. */
function toPointer(location: string): string {
  const raw = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function parent(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf("/")));
}

function lastSegment(pointer: string): string {
  return pointer
    .slice(pointer.lastIndexOf("/") + 1)
    .replaceAll("~1", "/")
    .replaceAll("~0", "~");
}

/** Bounds and sizes, rephrased as what the value must be. */
const REWRITES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    /^(.*) is less than\s+(or equal to\s+)?(.*)\.$/,
    (m) => `must be ${m[2] ? "greater than" : "at least"} ${m[3]} (got ${m[1]})`,
  ],
  [
    /^(.*) is greater than\s+(or equal to\s+)?(.*)\.$/,
    (m) => `must be ${m[2] ? "less than" : "at most"} ${m[3]} (got ${m[1]})`,
  ],
  [/^String is too short \((\d+) < (\d+)\)\.$/, (m) => `must be at least ${m[2]} characters long (got ${m[1]})`],
  [/^String is too long \((\d+) > (\d+)\)\.$/, (m) => `must be at most ${m[2]} characters long (got ${m[1]})`],
  [/^Array has too few items \((\d+) < (\d+)\)\.$/, (m) => `must have at least ${m[2]} items (got ${m[1]})`],
  [/^Array has too many items \((\d+) > (\d+)\)\.$/, (m) => `must have at most ${m[2]} items (got ${m[1]})`],
  [/^String does not match format "(.*)"\.$/, (m) => `must be a valid ${m[1]} string`],
];

/** A draft as `describe` gives it: the keyword defaults to the unit's own. */
type Described = Omit<IssueDraft, "wrapper" | "keyword"> & { keyword?: string };

const PROPERTY_WRAPPERS = new Set(["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"]);
const ITEM_WRAPPERS = new Set(["items", "prefixItems", "additionalItems", "unevaluatedItems"]);

/**
 * Rewrites one validator error in plain terms. `previous` is the error emitted just before: the
 * validator reports a `false` subschema with a useless keywordLocation, so the wrapper that precedes
 * it is the only way to tell "additionalProperties: false" from any other false schema.
 */
function describe(e: OutputUnit, previous: OutputUnit | undefined, value: unknown): Described {
  const pointer = toPointer(e.instanceLocation);
  const got = valueAt(value, pointer);
  switch (e.keyword) {
    case "type": {
      const expected = /Expected (.*)\.$/.exec(e.error)?.[1] ?? "";
      const types = [...expected.matchAll(/"([a-z]+)"/g)].map((m) => m[1] ?? "");
      return { pointer, message: "", types };
    }
    case "required": {
      const key = /property "(.*)"\.$/.exec(e.error)?.[1] ?? "?";
      return { pointer, message: `missing required property "${showKey(key)}"` };
    }
    case "enum": {
      const list = e.error.replace(/^Instance does not match any of /, "").replace(/\.$/, "");
      let choices: unknown;
      try {
        choices = JSON.parse(list);
      } catch {
        choices = undefined;
      }
      const allowed = Array.isArray(choices) ? showChoices(choices) : list;
      return { pointer, message: `must be one of ${allowed} (got ${show(got, 40)})` };
    }
    case "const":
      return { pointer, message: `must equal ${e.error.replace(/^Instance does not match /, "").replace(/\.$/, "")}` };
    case "false": {
      const wrapper = previous && toPointer(previous.instanceLocation) === parent(pointer) ? previous.keyword : "";
      if (PROPERTY_WRAPPERS.has(wrapper)) {
        return {
          pointer: parent(pointer),
          keyword: wrapper,
          message: `property "${showKey(lastSegment(pointer))}" is not allowed`,
        };
      }
      if (ITEM_WRAPPERS.has(wrapper)) {
        return {
          pointer: parent(pointer),
          keyword: wrapper,
          message: `item ${lastSegment(pointer)} is not allowed (too many items)`,
        };
      }
      return { pointer, message: "no value is allowed here" };
    }
    case "oneOf":
      return {
        pointer,
        message: e.error.includes("(0 matches)")
          ? "matches none of the allowed alternatives"
          : "matches more than one of the alternatives (exactly one must match)",
      };
    case "anyOf":
      return { pointer, message: "matches none of the allowed alternatives" };
    case "not":
      return { pointer, message: "matches a schema it must not match" };
    // The validator words these as "is less than N" although equality fails too.
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const bound = /than (?:or equal to )?(.*)\.$/.exec(e.error)?.[1] ?? "?";
      const side = e.keyword === "exclusiveMinimum" ? "greater" : "less";
      return { pointer, message: `must be ${side} than ${bound} (got ${show(got, 40)})` };
    }
    case "uniqueItems": {
      const m = /indexes (\d+) and (\d+)/.exec(e.error);
      return { pointer, message: m ? duplicates(Number(m[1]), Number(m[2])) : "must not contain duplicates" };
    }
    // The validator's maxProperties message says "at least"; the bound and the count are what matter.
    case "minProperties":
    case "maxProperties": {
      const bound = /(\d+) properties/.exec(e.error)?.[1] ?? "?";
      const side = e.keyword === "minProperties" ? "at least" : "at most";
      const count = got && typeof got === "object" ? Object.keys(got).length : 0;
      return { pointer, message: `must have ${side} ${bound} properties (got ${count})` };
    }
    case "pattern":
      return { pointer, message: `does not match the required pattern (got ${show(got, 40)})` };
    default: {
      for (const [re, rewrite] of REWRITES) {
        const m = re.exec(e.error);
        if (m) return { pointer, message: rewrite(m) };
      }
      return { pointer, message: e.error.replace(/^Instance /, "value ").replace(/\.$/, "") };
    }
  }
}

/** Every output unit as a draft, in the validator's order. */
export function cfworkerIssues(errors: readonly OutputUnit[], value: unknown): IssueDraft[] {
  return errors.map((e, i) => {
    const { keyword, ...rest } = describe(e, errors[i - 1], value);
    return { ...rest, keyword: keyword ?? e.keyword, wrapper: WRAPPERS.has(e.keyword) };
  });
}
