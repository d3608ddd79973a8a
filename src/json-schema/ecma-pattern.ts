/**
 * A schema's `pattern` (an ECMA-262 regular expression, read in Unicode mode: the `u` flag the validator builds it
 * with) written in RE2's syntax with the same meaning, for re2js (linear-pattern.ts), with what it costs, or why
 * it cannot be. Its steps are those of RE2's program, which a test may run for each character at worst: one per
 * character, class and assertion, and a counted repetition that many copies of what it repeats (`x{500}` is 500
 * `x`s, as RE2 compiles it). Its work, what compiling it costs, adds one step per member of a class and
 * PROPERTY_WORK per `\p{…}` (a table of up to a thousand ranges, 0.15 ms each to merge into a class), counted
 * once however often they repeat, as the compiler builds each class once. The source must already be valid
 * (regex-syntax.ts), so this reads the grammar without checking it. Where the two dialects differ it writes ECMA's meaning out:
 * - `.` is any character but the four line terminators (RE2's `.` stops only at `\n`);
 * - `\s` / `\S` are ECMA's white space and line terminators (RE2's `\s` is ASCII's six);
 * - `\uXXXX` (a surrogate pair of them is one character in `u` mode), `\u{…}`, `\xXX`, `\cX`, `\0`, `\v` become
 *   `\x{…}`; `[]` matches nothing and `[^]` anything;
 * - `\p{…}`: General_Category values by any of their names, `Script=`/`sc=` with a script's full name, and the
 *   binary properties RE2 has (`ASCII`, `Any`, `Alphabetic`, `White_Space`, the emoji ones…);
 * - every group is written non-capturing: a pattern only tests, and re2js runs a lookbehind only without captures.
 * What RE2 cannot run is refused: lookahead (`(?=`, `(?!`), backreferences (`\1`, `\k<name>`), inline modifiers
 * (`(?i:…)`), `Script_Extensions` and the properties RE2 lacks, nesting deeper than RE2's 1,000 levels. `\d`, `\w`
 * and `\b` are ASCII in both, `^` and `$` mean the input's ends in both, a negated class matches a newline in both.
 * ECMA's characters and sets in RE2's syntax: re2-characters.ts; a property's RE2 name: re2-property.ts.
 */

import { ANYTHING, DOT, hex, literal, NOT_SPACE, NOTHING, SPACE } from "./re2-characters";
import { re2Property } from "./re2-property";

/** Where a translation stops: the pattern as RE2 reads it, or why RE2 cannot take it. */
type Translation =
  | { ok: true; source: string; steps: number; work: number; lookbehind: boolean }
  | { ok: false; reason: string };

/** A Unicode property escape's share of the work. */
export const PROPERTY_WORK = 16;
/** RE2 refuses deeper nesting ("expression nests too deeply"); refusing here keeps the reader's recursion short. */
const MAX_NESTING = 1000;

const LOOKAHEAD = "has a lookahead ((?= or (?!), which the linear-time regex engine cannot run";
const BACKREFERENCE = "has a backreference (\\1 or \\k<name>), which the linear-time regex engine cannot run";
const MODIFIERS = "has inline modifiers ((?i: …)), which the linear-time regex engine does not read";

/** Thrown inside the reader, caught once at its top. */
class Refusal {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

interface Piece {
  text: string;
  size: number;
}

/** One class member: its RE2 text, and its code point when it is one character (the end of a range). */
interface Member {
  text: string;
  cp?: number;
}

/** The size RE2's program gives `x{min,max}` (max undefined: unbounded) for an `x` of `size`. */
function repeated(size: number, min: number, max: number | undefined): number {
  return max === undefined ? min * size + size + 1 : min * size + (max - min) * (size + 1);
}

class Reader {
  private readonly s: string;
  private i = 0;
  lookbehind = false;
  /** The work of its classes and properties (see above); the steps are each piece's size. */
  work = 0;

  constructor(source: string) {
    this.s = source;
  }

  /** The whole pattern. */
  read(): Piece {
    const piece = this.disjunction(0);
    if (this.i < this.s.length) throw new Refusal("could not be read");
    return piece;
  }

  private disjunction(depth: number): Piece {
    const alternatives = [this.alternative(depth)];
    while (this.s[this.i] === "|") {
      this.i++;
      alternatives.push(this.alternative(depth));
    }
    return {
      text: alternatives.map((a) => a.text).join("|"),
      size: alternatives.reduce((sum, a) => sum + a.size, alternatives.length - 1),
    };
  }

  private alternative(depth: number): Piece {
    let text = "";
    let size = 0;
    for (let c = this.s[this.i]; c !== undefined && c !== "|" && c !== ")"; c = this.s[this.i]) {
      const term = this.quantified(this.term(depth));
      text += term.text;
      size += term.size;
    }
    return { text, size };
  }

  private term(depth: number): Piece {
    const c = this.s[this.i] as string;
    if (c === "^" || c === "$") {
      this.i++;
      return { text: c, size: 1 };
    }
    if (c === ".") {
      this.i++;
      return { text: DOT, size: 1 };
    }
    if (c === "(") return this.group(depth);
    if (c === "[") return this.characterClass();
    if (c === "\\") return this.escape();
    const cp = this.s.codePointAt(this.i) as number;
    this.i += cp > 0xffff ? 2 : 1;
    return { text: literal(cp), size: 1 };
  }

  private quantified(atom: Piece): Piece {
    const c = this.s[this.i];
    let size: number;
    let text: string;
    if (c === "*" || c === "+" || c === "?") {
      this.i++;
      size = atom.size + 1;
      text = c;
    } else if (c === "{") {
      const close = this.s.indexOf("}", this.i);
      text = this.s.slice(this.i, close + 1);
      const [min = "0", max] = text.slice(1, -1).split(",");
      size = repeated(atom.size, Number(min), max === undefined ? Number(min) : max === "" ? undefined : Number(max));
      this.i = close + 1;
    } else return atom;
    if (this.s[this.i] === "?") {
      this.i++;
      text += "?";
    }
    return { text: atom.text + text, size };
  }

  private group(depth: number): Piece {
    if (depth >= MAX_NESTING) throw new Refusal(`nests groups deeper than ${MAX_NESTING} levels`);
    const s = this.s;
    let open = "(?:";
    let extra = 0;
    if (s.startsWith("(?=", this.i) || s.startsWith("(?!", this.i)) throw new Refusal(LOOKAHEAD);
    if (s.startsWith("(?<=", this.i) || s.startsWith("(?<!", this.i)) {
      open = s.slice(this.i, this.i + 4);
      this.lookbehind = true;
      extra = 2;
      this.i += 4;
    } else if (s.startsWith("(?<", this.i)) this.i = s.indexOf(">", this.i) + 1;
    else if (s.startsWith("(?:", this.i)) this.i += 3;
    else if (s.startsWith("(?", this.i)) throw new Refusal(MODIFIERS);
    else this.i += 1;
    const inner = this.disjunction(depth + 1);
    this.i++; // ")"
    return { text: `${open}${inner.text})`, size: inner.size + extra };
  }

  private characterClass(): Piece {
    const s = this.s;
    this.i++;
    const negated = s[this.i] === "^";
    if (negated) this.i++;
    if (s[this.i] === "]") {
      this.i++;
      return { text: negated ? ANYTHING : NOTHING, size: 1 };
    }
    let members = "";
    while (s[this.i] !== "]") {
      const first = this.member();
      this.work++;
      if (s[this.i] === "-" && s[this.i + 1] !== "]" && first.cp !== undefined) {
        this.i++;
        const last = this.member();
        members += `${hex(first.cp)}-${hex(last.cp as number)}`;
      } else members += first.text;
    }
    this.i++;
    return { text: `[${negated ? "^" : ""}${members}]`, size: 1 };
  }

  /** One member of a class: a character, or a class escape (`\d`, `\s`, `\p{…}`…). */
  private member(): Member {
    if (this.s[this.i] !== "\\") {
      const cp = this.s.codePointAt(this.i) as number;
      this.i += cp > 0xffff ? 2 : 1;
      return { text: hex(cp), cp };
    }
    const c = this.s[this.i + 1];
    switch (c) {
      case "d":
      case "D":
      case "w":
      case "W":
        this.i += 2;
        return { text: `\\${c}` };
      case "s":
        this.i += 2;
        return { text: SPACE };
      case "S":
        this.i += 2;
        return { text: NOT_SPACE };
      case "p":
      case "P":
        return { text: this.property() };
      case "b":
        this.i += 2;
        return { text: hex(8), cp: 8 };
      default: {
        const cp = this.characterEscape();
        return { text: hex(cp), cp };
      }
    }
  }

  private escape(): Piece {
    const c = this.s[this.i + 1] as string;
    switch (c) {
      case "d":
      case "D":
      case "w":
      case "W":
      case "b":
      case "B":
        this.i += 2;
        return { text: `\\${c}`, size: 1 };
      case "s":
        this.i += 2;
        return { text: `[${SPACE}]`, size: 1 };
      case "S":
        this.i += 2;
        return { text: `[^${SPACE}]`, size: 1 };
      case "p":
      case "P":
        return { text: this.property(), size: 1 };
      case "k":
        throw new Refusal(BACKREFERENCE);
      default:
        if (c >= "1" && c <= "9") throw new Refusal(BACKREFERENCE);
        return { text: hex(this.characterEscape()), size: 1 };
    }
  }

  /** `\p{…}` or `\P{…}` at the reader. */
  private property(): string {
    this.work += PROPERTY_WORK;
    const close = this.s.indexOf("}", this.i);
    const named = re2Property(this.s.slice(this.i + 3, close));
    if (!named.ok) throw new Refusal(named.reason);
    const text = `\\${this.s[this.i + 1]}{${named.name}}`;
    this.i = close + 1;
    return text;
  }

  /** An escape that stands for one character (`\n`, `\x41`, `\u{1F600}`, `\/`…), as its code point. */
  private characterEscape(): number {
    const s = this.s;
    const c = s[this.i + 1] as string;
    const simple: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, 0: 0 };
    const known = simple[c];
    if (known !== undefined) {
      this.i += 2;
      return known;
    }
    if (c === "c") {
      this.i += 3;
      return (s.charCodeAt(this.i - 1) as number) % 32;
    }
    if (c === "x") {
      this.i += 4;
      return Number.parseInt(s.slice(this.i - 2, this.i), 16);
    }
    if (c === "u") return this.unicodeEscape();
    // An escaped syntax character or `/` (`-` in a class): the character itself.
    const cp = s.codePointAt(this.i + 1) as number;
    this.i += cp > 0xffff ? 3 : 2;
    return cp;
  }

  /** `\u{…}`, or `\uXXXX` (with a `\uXXXX` low surrogate after a high one: one character in `u` mode). */
  private unicodeEscape(): number {
    const s = this.s;
    if (s[this.i + 2] === "{") {
      const close = s.indexOf("}", this.i);
      const cp = Number.parseInt(s.slice(this.i + 3, close), 16);
      this.i = close + 1;
      return cp;
    }
    const cp = Number.parseInt(s.slice(this.i + 2, this.i + 6), 16);
    this.i += 6;
    if (
      cp >= 0xd800 &&
      cp <= 0xdbff &&
      s.startsWith("\\u", this.i) &&
      /^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))
    ) {
      const low = Number.parseInt(s.slice(this.i + 2, this.i + 6), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.i += 6;
        return 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return cp;
  }
}

/** `source` (a valid `u`-mode ECMA-262 pattern) in RE2's syntax, or why RE2 cannot run it. */
export function translatePattern(source: string): Translation {
  const reader = new Reader(source);
  try {
    const { text, size } = reader.read();
    return { ok: true, source: text, steps: size, work: size + reader.work, lookbehind: reader.lookbehind };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason };
    throw e;
  }
}
