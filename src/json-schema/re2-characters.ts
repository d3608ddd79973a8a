/**
 * Characters and character sets of ECMA-262 (`u` mode) written in RE2's syntax with ECMA's meaning, for
 * ecma-pattern.ts: a code point by number (`hex`), a literal character (`literal`), ECMA's `\s` and its complement
 * as a class's contents (`SPACE`, `NOT_SPACE`), ECMA's `.` (`DOT`), and the classes `[^]` and `[]` stand for
 * (`ANYTHING`, `NOTHING`).
 */

const MAX_CODE_POINT = 0x10ffff;

/** ECMA-262's white space and line terminators (`\s`), as code point ranges. */
const SPACES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

/** A code point as RE2 writes it by number: `\x{…}`. */
export function hex(cp: number): string {
  return `\\x{${cp.toString(16).toUpperCase()}}`;
}

function rangesText(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");
}

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** The contents of a class (no brackets), so they also go inside one. */
export const SPACE = rangesText(SPACES);
export const NOT_SPACE = rangesText(complement(SPACES));
/** `.` in ECMA: anything but a line terminator. */
export const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";
export const ANYTHING = `[\\x{0}-\\x{${MAX_CODE_POINT.toString(16).toUpperCase()}}]`;
export const NOTHING = `[^\\x{0}-\\x{${MAX_CODE_POINT.toString(16).toUpperCase()}}]`;

/** A literal character as RE2 reads it: letters and digits as they are, anything else by its code point. */
export function literal(cp: number): string {
  const plain = (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return plain || (cp >= 0x80 && (cp < 0xd800 || cp > 0xdfff)) ? String.fromCodePoint(cp) : hex(cp);
}
