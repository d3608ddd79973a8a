/**
 * A schema's `pattern` (or `patternProperties` key) as a matcher whose time is linear in the text it tests: the
 * ECMA-262 source is checked (regex-syntax.ts), written in RE2's syntax (ecma-pattern.ts) and compiled by re2js, a
 * JavaScript port of RE2 (no eval, which workerd refuses at request time). V8's own engine backtracks, so a pattern
 * such as `^(a+)+$` takes time exponential in the value the model writes (0.3 s for 26 `a`s and a `!`, doubling
 * with each further letter). RE2's time is linear in the text times its program's steps, so those are bounded
 * (counted by ecma-pattern.ts): MAX_PATTERN_STEPS a pattern; and so is what compiling costs (about 5 µs a step of
 * work), MAX_SCHEMA_PATTERN_WORK for a schema's patterns together. Ordinary patterns run on re2js's lazy DFA in tens
 * of ns a character; one whose automaton cannot hold its states (an unanchored `[a-z]{998}!` against runs of
 * letters) falls back to its NFA, some 15-30 ns a character for each step: 15-25 µs a character at the bound
 * (bench/schemas.mjs; V8 took 3-4 µs on that one).
 *
 * re2js builds the DFA's states as texts need them and keeps them. Each pattern's automaton holds at most
 * AUTOMATON_BYTES (re2js's own estimate; past it, it starts over, and falls back to its NFA when that keeps
 * happening), and all patterns' together at most WARM_BYTES: past that every one of them is cleared (its program is
 * kept). A pattern's states are otherwise kept between values, since building them again costs more than the test.
 */
import { RE2JS, RE2Set } from "re2js";
import { PROPERTY_WORK, translatePattern } from "./ecma-pattern";
import { isUnicodeRegex } from "./regex-syntax";

/** The most steps one pattern's program may have (RE2 compiles `x{1000}` as a thousand copies of `x`). */
const MAX_PATTERN_STEPS = 1000;
/** The most work compiling a schema's distinct patterns may take together (and so one of them). */
export const MAX_SCHEMA_PATTERN_WORK = 20_000;
const AUTOMATON_BYTES = 2 * 1024 * 1024;
const WARM_BYTES = 8 * 1024 * 1024;
/** Patterns whose automaton holds states at once: each is kept alive until the next clearing. */
const MAX_WARM = 1024;

export interface LinearPattern {
  /** The pattern as the schema writes it. */
  readonly source: string;
  /** What compiling it took, in steps (ecma-pattern.ts). */
  readonly work: number;
  /** Whether the pattern matches somewhere in `text` (JSON Schema patterns are not anchored), as RegExp#test. */
  test(text: string): boolean;
}

type PatternResult =
  | { ok: true; pattern: LinearPattern }
  /** Not an ECMA-262 regular expression at all. */
  | { ok: false; invalid: true }
  /** A valid one the linear-time engine cannot run as it means; `reason` says why, to follow the pattern's text. */
  | { ok: false; invalid: false; reason: string };

const warm = new Set<RE2Set>();
let warmBytes = 0;

/** The bytes of states `set`'s automaton holds, by re2js's count. */
function held(set: RE2Set): number {
  return set.dfa.maxMem - set.dfa.memBudget;
}

function coolAll(): void {
  for (const set of warm) set.dfa.clearCache();
  warm.clear();
  warmBytes = 0;
}

class Compiled implements LinearPattern {
  readonly source: string;
  readonly work: number;
  readonly #set: RE2Set;

  constructor(source: string, work: number, set: RE2Set) {
    this.source = source;
    this.work = work;
    this.#set = set;
  }

  test(text: string): boolean {
    const set = this.#set;
    const before = held(set);
    const found = set.match(text).length > 0;
    warmBytes += held(set) - before;
    warm.add(set);
    if (warmBytes > WARM_BYTES || warm.size > MAX_WARM) coolAll();
    return found;
  }
}

function count(n: number): string {
  return n > 1e9 ? "over a billion" : String(n);
}

/** Why a translated pattern is too large to compile, if it is. */
function tooLarge(steps: number, work: number): string | undefined {
  if (steps > MAX_PATTERN_STEPS) {
    return (
      `is too large for the linear-time regex engine: ${count(steps)} steps, more than the ${MAX_PATTERN_STEPS} a ` +
      "pattern may have (x{500} is 500 copies of x); bound a length with minLength / maxLength"
    );
  }
  if (work > MAX_SCHEMA_PATTERN_WORK) {
    return (
      `is too large for the linear-time regex engine to compile: ${count(work)} steps of work, more than the ` +
      `${MAX_SCHEMA_PATTERN_WORK} a schema's patterns may take (each member of a class is one, each \\p{…} ${PROPERTY_WORK})`
    );
  }
  return undefined;
}

/** `source` compiled for linear-time tests, or why not. */
export function compilePattern(source: string): PatternResult {
  if (!isUnicodeRegex(source)) return { ok: false, invalid: true };
  const translated = translatePattern(source);
  if (!translated.ok) return { ok: false, invalid: false, reason: translated.reason };
  // Refused before compiling, whose cost grows with the work.
  const large = tooLarge(translated.steps, translated.work);
  if (large !== undefined) return { ok: false, invalid: false, reason: large };
  let set: RE2Set;
  try {
    set = new RE2Set(RE2Set.UNANCHORED, translated.lookbehind ? RE2JS.LOOKBEHINDS : 0, AUTOMATON_BYTES);
    set.add(translated.source);
    set.compile();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, invalid: false, reason: `cannot be run by the linear-time regex engine (${why})` };
  }
  return { ok: true, pattern: new Compiled(source, translated.work, set) };
}
