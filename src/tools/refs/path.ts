/**
 * `$path` syntax: keys joined by dots, `[n]` for array indexes, `["key"]` (or `['key']`) for keys
 * containing dots, brackets or spaces. A leading `$` (root) and a leading `.` are optional.
 * Examples: `a.b[0].c`, `$.items[2]`, `meta["content-type"]`, `["a.b"].c`.
 */

export type PathSegment = string | number;

type ParsedPath = { ok: true; segments: PathSegment[] } | { ok: false; error: string };

const MAX_PATH_LENGTH = 1024;
const MAX_PATH_SEGMENTS = 64;

const INDEX = /^(0|[1-9]\d*)$/;
/** Characters that end a bare key. */
const BARE_END = new Set([".", "["]);

class PathError extends Error {}

function readBare(path: string, start: number): [string, number] {
  let end = start;
  while (end < path.length && !BARE_END.has(path[end]!)) {
    if (path[end] === "]") throw new PathError(`unexpected "]" at position ${end}`);
    end++;
  }
  if (end === start) throw new PathError(`empty key at position ${start}`);
  return [path.slice(start, end), end];
}

function readQuoted(path: string, start: number): [string, number] {
  const quote = path[start]!;
  let end = start + 1;
  while (end < path.length && path[end] !== quote) end += path[end] === "\\" ? 2 : 1;
  if (end >= path.length) throw new PathError(`unterminated quoted key starting at position ${start}`);
  const body = path.slice(start + 1, end);
  let key: string;
  if (quote === '"') {
    try {
      key = JSON.parse(`"${body}"`) as string;
    } catch {
      throw new PathError(`invalid escape in quoted key at position ${start}`);
    }
  } else {
    key = body.replace(/\\(.)/g, "$1");
  }
  return [key, end + 1];
}

function readBracket(path: string, start: number): [PathSegment, number] {
  const first = path[start + 1];
  let segment: PathSegment;
  let next: number;
  if (first === '"' || first === "'") {
    [segment, next] = readQuoted(path, start + 1);
  } else {
    const close = path.indexOf("]", start);
    if (close === -1) throw new PathError(`unterminated "[" at position ${start}`);
    const inner = path.slice(start + 1, close).trim();
    if (!INDEX.test(inner) || !Number.isSafeInteger(Number(inner))) {
      const hint = inner.startsWith("-") ? "negative indexes are not supported" : 'use [n] or ["key"]';
      throw new PathError(`invalid index "[${inner}]" at position ${start}; ${hint}`);
    }
    segment = Number(inner);
    next = close;
  }
  if (path[next] !== "]") throw new PathError(`expected "]" at position ${next}`);
  return [segment, next + 1];
}

/** Parses a `$path`; an empty path (or just `$`) means the whole result. */
export function parsePath(input: string): ParsedPath {
  const path = input.trim();
  if (path.length > MAX_PATH_LENGTH) return { ok: false, error: `path is longer than ${MAX_PATH_LENGTH} characters` };
  const segments: PathSegment[] = [];
  // "$" is the root marker only when alone or followed by "." or "["; "$foo" is a key.
  let i = path.startsWith("$") && (path.length === 1 || BARE_END.has(path[1]!)) ? 1 : 0;
  try {
    while (i < path.length) {
      const c = path[i];
      let segment: PathSegment;
      if (c === "[") [segment, i] = readBracket(path, i);
      else if (c === ".") {
        if (i + 1 >= path.length) throw new PathError(`path ends with "."`);
        [segment, i] = readBare(path, i + 1);
      } else if (segments.length === 0 && i <= 1) [segment, i] = readBare(path, i);
      else throw new PathError(`unexpected "${c}" at position ${i}; expected "." or "["`);
      segments.push(segment);
      if (segments.length > MAX_PATH_SEGMENTS) throw new PathError(`more than ${MAX_PATH_SEGMENTS} segments`);
    }
  } catch (e) {
    if (e instanceof PathError) return { ok: false, error: `invalid path ${JSON.stringify(input)}: ${e.message}` };
    throw e;
  }
  return { ok: true, segments };
}

/** The inverse of parsePath, for messages: bare keys where unambiguous, quoted otherwise. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[^.[\]"'\s\\]+$/.test(s) && !(out === "" && s.startsWith("$"))) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
