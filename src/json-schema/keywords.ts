/**
 * The JSON Schema vocabulary Switchboard accepts: the union of draft-07, 2019-09 and 2020-12.
 *
 * Each keyword says what its value must be. The schema walker uses this to tell subschemas (which it
 * descends into and checks for unknown keywords) from plain values (data such as `const`, `enum`,
 * `default`, which may contain any keys at all and must never be flagged).
 */

export type KeywordKind =
  | "schema" // one subschema
  | "items" // one subschema, or an array of them (draft-07 tuple form)
  | "schemaArray" // non-empty array of subschemas
  | "schemaMap" // object whose values are subschemas (keys are user data)
  | "patternMap" // like schemaMap, but keys must be valid regular expressions
  | "dependencies" // draft-07: values are a subschema or an array of property names
  | "type"
  | "string"
  | "boolean"
  | "number"
  | "positiveNumber"
  | "nonNegativeInteger"
  | "regex"
  | "stringArray"
  | "stringArrayMap"
  | "booleanMap"
  | "array"
  | "any";

/** Map (not a plain object) so that keys like "constructor" or "__proto__" are never mistaken for keywords. */
export const KEYWORDS: ReadonlyMap<string, KeywordKind> = new Map<string, KeywordKind>([
  // Core
  ["$schema", "string"],
  ["$id", "string"],
  ["$ref", "string"],
  ["$anchor", "string"],
  ["$dynamicRef", "string"],
  ["$dynamicAnchor", "string"],
  ["$recursiveRef", "string"],
  ["$recursiveAnchor", "boolean"],
  ["$vocabulary", "booleanMap"],
  ["$comment", "string"],
  ["$defs", "schemaMap"],
  ["definitions", "schemaMap"],
  // Applicators
  ["allOf", "schemaArray"],
  ["anyOf", "schemaArray"],
  ["oneOf", "schemaArray"],
  ["not", "schema"],
  ["if", "schema"],
  ["then", "schema"],
  ["else", "schema"],
  ["dependentSchemas", "schemaMap"],
  ["dependencies", "dependencies"],
  ["prefixItems", "schemaArray"],
  ["items", "items"],
  ["additionalItems", "schema"],
  ["unevaluatedItems", "schema"],
  ["contains", "schema"],
  ["properties", "schemaMap"],
  ["patternProperties", "patternMap"],
  ["additionalProperties", "schema"],
  ["unevaluatedProperties", "schema"],
  ["propertyNames", "schema"],
  ["contentSchema", "schema"],
  // Validation
  ["type", "type"],
  ["enum", "array"],
  ["const", "any"],
  ["multipleOf", "positiveNumber"],
  ["maximum", "number"],
  ["minimum", "number"],
  ["exclusiveMaximum", "number"],
  ["exclusiveMinimum", "number"],
  ["maxLength", "nonNegativeInteger"],
  ["minLength", "nonNegativeInteger"],
  ["pattern", "regex"],
  ["maxItems", "nonNegativeInteger"],
  ["minItems", "nonNegativeInteger"],
  ["uniqueItems", "boolean"],
  ["maxContains", "nonNegativeInteger"],
  ["minContains", "nonNegativeInteger"],
  ["maxProperties", "nonNegativeInteger"],
  ["minProperties", "nonNegativeInteger"],
  ["required", "stringArray"],
  ["dependentRequired", "stringArrayMap"],
  // Annotations
  ["title", "string"],
  ["description", "string"],
  ["default", "any"],
  ["examples", "array"],
  ["deprecated", "boolean"],
  ["readOnly", "boolean"],
  ["writeOnly", "boolean"],
  ["format", "string"],
  ["contentEncoding", "string"],
  ["contentMediaType", "string"],
]);

export const TYPE_NAMES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "null",
]);

/** Vendor extensions (OpenAPI style) are annotations we neither check nor descend into. */
export function isExtension(key: string): boolean {
  return key.startsWith("x-");
}

/** Edit distance, capped: only used to suggest the keyword a typo probably meant. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? cap + 1;
}

/** The closest known keyword, if one is close enough to be a plausible typo ("requird" → "required"). */
export function suggestKeyword(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  const lower = key.toLowerCase();
  for (const known of KEYWORDS.keys()) {
    const d = distance(lower, known.toLowerCase(), 2);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}
