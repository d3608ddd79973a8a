/**
 * `uniqueItems` in linear time for the run-time engine (compile.ts). @cfworker/json-schema compares every pair of
 * an array's items (seconds for 5,000 objects with one duplicate), so the schema it is given says, in place of each
 * `uniqueItems: true`, "not one of the arrays of this value that hold a duplicate". Which arrays those are is found
 * here, once per value, by one canonical text per item in a Set (JSON equality: key order does not matter, 1 and
 * 1.0 are one number), and handed to the validator through its `$ref` lookup. An array of up to
 * PAIRWISE_MAX_ITEMS items is left to the pairwise pass, cheap at that length, so only longer arrays are compared
 * with the value's longer duplicated ones. The validator still decides where the keyword applies (through $ref,
 * anyOf, if…), so the verdict is the keyword's own.
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import { canonical } from "../model/json";
import { valueAt } from "./reduce-issues";

/** Where the lookup holds this value's duplicated arrays: not a URI any schema here can name (refs are local). */
const DUPLICATED = "urn:switchboard:duplicated-arrays";

type Lookup = Record<string, Schema | boolean>;

/**
 * A copy of the checked schema with each `uniqueItems: true` at `pointers` (subschema positions) replaced by
 * `not: {$ref: DUPLICATED}`, or dropped (`keep: false`, for values with no duplicated array). A subschema with a
 * `not` of its own keeps its `uniqueItems` (and the validator's pairwise pass there).
 */
export function replaceUniqueItems(schema: unknown, pointers: readonly string[], keep: boolean): unknown {
  const copy: unknown = JSON.parse(JSON.stringify(schema));
  for (const pointer of pointers) {
    const node = valueAt(copy, pointer) as { uniqueItems?: unknown; not?: unknown };
    if (keep && node.not !== undefined) continue;
    delete node.uniqueItems;
    if (keep) node.not = { $ref: DUPLICATED };
  }
  return copy;
}

/** The arrays in `value` that hold two JSON-equal items, one of each content: linear per array. */
export function duplicatedArrays(value: unknown): unknown[][] {
  const found = new Map<string, unknown[]>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v) && v.length > 1) {
      const keys = v.map(canonical);
      if (new Set(keys).size < v.length) found.set(`[${keys.join(",")}]`, v);
    }
    for (const child of Object.values(v)) stack.push(child);
  }
  return [...found.values()];
}

/**
 * Arrays up to this long are checked by the validator's own pairwise pass (at most this many comparisons per
 * item), not against the value's duplicated arrays: the `enum` compares each array checked with every one of them,
 * and a value of many short arrays (5,000 under uniqueItems beside 5,000 duplicated pairs) would cost their product.
 */
const PAIRWISE_MAX_ITEMS = 32;

/**
 * The prepared lookup with what the replaced keyword looks up (the shared lookup is left alone): a short array
 * holds a duplicate by the pairwise pass, a longer one when it is one of `duplicated`'s longer arrays.
 */
export function lookupWith(lookup: Lookup, duplicated: unknown[][]): Lookup {
  const own = Object.create(lookup) as Lookup;
  own[DUPLICATED] = {
    if: { maxItems: PAIRWISE_MAX_ITEMS },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, a plain schema object never awaited.
    then: { not: { uniqueItems: true } },
    else: { enum: duplicated.filter((a) => a.length > PAIRWISE_MAX_ITEMS) },
  };
  return own;
}

/** The first pair of equal items as the validator's pairwise pass names it: the earliest item that has a copy. */
function firstPair(items: readonly unknown[]): [number, number] | undefined {
  const keys = items.map(canonical);
  const count = new Map<string, number>();
  for (const k of keys) count.set(k, (count.get(k) ?? 0) + 1);
  const first = keys.findIndex((k) => (count.get(k) ?? 0) > 1);
  return first < 0 ? undefined : [first, keys.indexOf(keys[first] as string, first + 1)];
}

/**
 * The validator's errors with each failed replacement (`not` at a subschema whose `not` is ours) worded as the
 * `uniqueItems` error it stands for. The location is followed through the schema (and the lookup at each `$ref`);
 * one that cannot be followed is left as it is: still a failure, only worded as `not`.
 */
export function uniqueItemsErrors(errors: OutputUnit[], schema: unknown, lookup: Lookup, value: unknown): OutputUnit[] {
  return errors.map((e) => {
    if (e.keyword !== "not" || !isReplacement(schema, lookup, e.keywordLocation)) return e;
    const items = valueAt(value, pointerOf(e.instanceLocation));
    const pair = Array.isArray(items) ? firstPair(items) : undefined;
    if (!pair) return e;
    return {
      ...e,
      keyword: "uniqueItems",
      keywordLocation: `${e.keywordLocation.slice(0, -"/not".length)}/uniqueItems`,
      error: `Duplicate items at indexes ${pair[0]} and ${pair[1]}.`,
    };
  });
}

/** A validator location ("#/a/b", URI-encoded segments) as a JSON pointer. */
function pointerOf(location: string): string {
  try {
    return decodeURIComponent(location.replace(/^#/, ""));
  } catch {
    return location;
  }
}

function isReplacement(schema: unknown, lookup: Lookup, keywordLocation: string): boolean {
  const segments = pointerOf(keywordLocation).split("/").slice(1);
  let node: unknown = schema;
  for (const raw of segments.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return false;
    const at = node as Record<string, unknown> & { __absolute_ref__?: string };
    if (raw === "$ref") node = lookup[at.__absolute_ref__ ?? String(at.$ref)];
    else node = at[raw.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  const not = typeof node === "object" && node !== null ? (node as { not?: unknown }).not : undefined;
  return typeof not === "object" && not !== null && (not as { $ref?: unknown }).$ref === DUPLICATED;
}
