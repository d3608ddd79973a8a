/**
 * Whether a string is an ECMA-262 regular expression in Unicode mode (the `u` flag, as @cfworker/json-schema and
 * Ajv build a schema's patterns), as V8 reads it, at a cost linear in its length. V8 builds the set of each
 * `\p{…}` escape anew wherever it stands (about 0.03 ms for `\p{L}`, 0.08 ms inside a class: 46 s for a
 * 500,000-character `[\p{L}\p{L}…]`), so each distinct property escape is checked once, on its own, and the whole is
 * checked with `\d` in its place: the same kind of escape (a class escape, valid wherever `\p{…}` is), built for
 * free. This is the syntax check of a schema's `pattern` (linear-pattern.ts) and of the `regex` format (formats.ts).
 */

/** Captured when the module loads: a validation may run with the global `RegExp` replaced (linear-regexp.ts). */
const NativeRegExp = RegExp;

/** Longest property escape body V8 knows (`General_Category=…`, `Script_Extensions=…` names are shorter). */
const MAX_PROPERTY_BODY = 64;
const PROPERTY_BODY = /^[A-Za-z0-9_=]+$/;

/** The property escapes found valid so far: a closed set (Unicode's names and values), so it needs no bound. */
const validProperties = new Set<string>();

function compiles(source: string): boolean {
  try {
    new NativeRegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

function validProperty(text: string): boolean {
  if (validProperties.has(text)) return true;
  if (!compiles(text)) return false;
  validProperties.add(text);
  return true;
}

/** Whether `source` is a valid `u`-mode regular expression. */
export function isUnicodeRegex(source: string): boolean {
  if (!source.includes("\\p{") && !source.includes("\\P{")) return compiles(source);
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== "\\") continue;
    const kind = source[i + 1];
    if ((kind === "p" || kind === "P") && source[i + 2] === "{") {
      const close = source.indexOf("}", i + 3);
      const body = close === -1 ? "" : source.slice(i + 3, close);
      // A malformed one is left in place: V8 refuses the whole at it.
      if (body.length > 0 && body.length <= MAX_PROPERTY_BODY && PROPERTY_BODY.test(body)) {
        if (!validProperty(source.slice(i, close + 1))) return false;
        parts.push(source.slice(copied, i), "\\d");
        copied = close + 1;
        i = close;
        continue;
      }
    }
    i++; // the escaped character, whatever it is (an escaped backslash starts no escape)
  }
  parts.push(source.slice(copied));
  return compiles(parts.join(""));
}
