/**
 * One validation run with a schema's patterns tested by their linear-time matchers (linear-pattern.ts) in place of
 * V8's backtracking engine. @cfworker/json-schema offers no hook for it: it writes `new RegExp(pattern, "u")` by the
 * global name at each `pattern` check and for each `patternProperties` key, so for the length of one synchronous
 * validation (nothing else runs in the isolate meanwhile) the global `RegExp` is a stand-in that answers with the
 * schema's compiled matcher for that source, and it is put back however the validation ends. Rewriting the schema
 * instead cannot keep `patternProperties`: the validator marks the keys it matches as evaluated, which decides what
 * `additionalProperties` and `unevaluatedProperties` see. The library's only other `new RegExp` was the `regex`
 * format, replaced in formats.ts by a check that holds the native constructor; a source the schema did not declare
 * is refused (the validation reports it), never handed to the native engine.
 */
import type { LinearPattern } from "./linear-pattern";

/** Runs `validation` with `new RegExp(source)` answered from `patterns` (keyed by source). */
export function withLinearPatterns<T>(patterns: ReadonlyMap<string, LinearPattern>, validation: () => T): T {
  if (patterns.size === 0) return validation();
  const native = globalThis.RegExp;
  function linearRegExp(source: unknown): LinearPattern {
    const pattern = typeof source === "string" ? patterns.get(source) : undefined;
    if (pattern === undefined)
      throw new Error(`the pattern ${JSON.stringify(source)} was not compiled with its schema`);
    return pattern;
  }
  globalThis.RegExp = linearRegExp as unknown as RegExpConstructor;
  try {
    return validation();
  } finally {
    globalThis.RegExp = native;
  }
}
