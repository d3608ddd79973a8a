/**
 * `$tool` references in tool arguments: `resolveRefs` replaces each one with a JSON copy of the value it
 * points to in an earlier call's result, within size and depth limits. A bad reference never throws: the
 * result is an error message saying, when known, where in the arguments it is.
 */
import { showKey } from "../../json-schema/index";
import { isPlainObject } from "../../model/json";
import { utf8Bytes } from "../../storage/fit";
import { setOwn } from "./json";
import { formatPath, type PathSegment, parsePath } from "./path";
import { refShape, type ToolRef } from "./sentinel";

/**
 * What the session knows about an earlier tool call: its result as JSON (or text), or why it cannot be passed. `cut`:
 * the result is not all the tool returned (its text is a head and a truncation marker): cut for storage, `stored`
 * saying it kept `kept` of its `original` UTF-8 bytes, or (`stored` null) cut before it was stored by the tool that
 * returned it (an `http` response past its read limit, an MCP output past its character limit).
 */
export type LookupResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: "unknown" | "failed" | "pending" }
  | { ok: false; reason: "cut"; stored: { kept: number; original: number } | null };

export type Lookup = (toolUseId: string) => LookupResult;

interface RefLimits {
  /** Nesting depth of the arguments walked looking for references. */
  maxDepth: number;
  /** Total values (objects, arrays, scalars) in the arguments. */
  maxNodes: number;
  /** Serialized size of one referenced value. */
  maxValueBytes: number;
  /** Serialized size of all referenced values together. */
  maxTotalBytes: number;
}

const DEFAULT_REF_LIMITS: Readonly<RefLimits> = Object.freeze({
  maxDepth: 32,
  maxNodes: 100_000,
  maxValueBytes: 256 * 1024,
  maxTotalBytes: 1024 * 1024,
});

type ResolveResult = { ok: true; value: unknown; refs: string[] } | { ok: false; error: string };

/** Keys that reach prototypes in ordinary JS; refused outright even when a result has them as own keys. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);
const INDEX = /^(0|[1-9]\d*)$/;

class RefError extends Error {
  /** Where in the arguments the failing reference sits, as a JSON pointer. */
  at: string | undefined;

  constructor(message: string, at?: string) {
    super(message);
    this.at = at;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function keyList(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  if (keys.length === 0) return "it is empty";
  // A result's keys can be any length: the message (and the invalid-call event and span that carry it) shows heads.
  const shown = keys.slice(0, 10).map((k) => JSON.stringify(showKey(k)));
  return `its keys are ${shown.join(", ")}${keys.length > 10 ? `, … (${keys.length} keys)` : ""}`;
}

/** Follows `segments` through own properties and in-range indexes only. */
function follow(root: unknown, segments: PathSegment[], id: string): unknown {
  const path = formatPath(segments);
  let cur = root;
  for (const [i, segment] of segments.entries()) {
    const here = i === 0 ? "the result" : formatPath(segments.slice(0, i));
    const missing = (why: string) => new RefError(`path "${path}" not found in the result of ${id} (${why})`);
    if (typeof segment === "string" && FORBIDDEN.has(segment)) {
      throw new RefError(`path "${path}" uses the forbidden key "${segment}"`);
    }
    if (Array.isArray(cur)) {
      const index = typeof segment === "number" ? segment : INDEX.test(segment) ? Number(segment) : Number.NaN;
      if (Number.isNaN(index))
        throw missing(`${here} is an array; use an index such as ${here === "the result" ? "" : here}[0]`);
      if (index >= cur.length) throw missing(`${here} has ${cur.length} item${cur.length === 1 ? "" : "s"}`);
      cur = cur[index];
    } else if (isPlainObject(cur)) {
      const key = String(segment);
      if (!Object.hasOwn(cur, key)) throw missing(`${here} has no key ${JSON.stringify(key)}; ${keyList(cur)}`);
      cur = cur[key];
    } else {
      throw missing(`${here} is ${describe(cur)}, not an object or array`);
    }
  }
  return cur;
}

/**
 * Replaces every reference sentinel in `args` with the value it points at.
 *
 * The output is built from fresh objects (own properties defined, never assigned), so hostile keys
 * such as "__proto__" stay plain data. Referenced values are copied through JSON, which both bounds
 * their size and detaches them from the stored result; references inside them are not followed.
 */
export function resolveRefs(args: unknown, lookup: Lookup, limits: Partial<RefLimits> = {}): ResolveResult {
  const lim: RefLimits = { ...DEFAULT_REF_LIMITS, ...limits };
  const refs: string[] = [];
  let nodes = 0;
  let totalBytes = 0;

  const resolveOne = (ref: ToolRef): unknown => {
    const found = lookup(ref.$tool);
    if (!found.ok) {
      if (found.reason === "unknown") throw new RefError(`reference to unknown tool call ${ref.$tool}`);
      if (found.reason === "failed") throw new RefError(`tool call ${ref.$tool} failed; its result cannot be used`);
      if (found.reason === "cut") {
        const how = found.stored
          ? `to its first ${found.stored.kept} of ${found.stored.original} bytes when stored`
          : "before it was stored (its text ends saying where)";
        throw new RefError(
          `the result of ${ref.$tool} was cut ${how}, so it cannot be passed; ask the tool for a smaller part and reference that`,
        );
      }
      throw new RefError(`tool call ${ref.$tool} has no result yet; only finished calls can be referenced`);
    }
    const parsed = parsePath(ref.$path ?? "");
    if (!parsed.ok) throw new RefError(parsed.error);
    const value = follow(found.value, parsed.segments, ref.$tool);
    let text: string;
    try {
      text = JSON.stringify(value) ?? "null";
    } catch {
      throw new RefError(`the value referenced from ${ref.$tool} is not JSON`);
    }
    const bytes = utf8Bytes(text);
    const label = parsed.segments.length > 0 ? `"${formatPath(parsed.segments)}" in the result of` : "the result of";
    if (bytes > lim.maxValueBytes) {
      throw new RefError(`${label} ${ref.$tool} is too large to pass (${bytes} bytes; limit ${lim.maxValueBytes})`);
    }
    totalBytes += bytes;
    if (totalBytes > lim.maxTotalBytes) {
      throw new RefError(`referenced values exceed ${lim.maxTotalBytes} bytes in total`);
    }
    if (!refs.includes(ref.$tool)) refs.push(ref.$tool);
    return JSON.parse(text);
  };

  const copy = (node: unknown, depth: number, at: string): unknown => {
    if (++nodes > lim.maxNodes) throw new RefError(`arguments have more than ${lim.maxNodes} values`);
    if (depth > lim.maxDepth) throw new RefError(`arguments nest deeper than ${lim.maxDepth} levels`);
    if (Array.isArray(node)) return node.map((v, i) => copy(v, depth + 1, `${at}/${i}`));
    if (!isPlainObject(node)) return node;
    // The arguments object itself is never a reference; anything below it may be.
    const shape = depth === 0 ? { kind: "none" as const } : refShape(node);
    if (shape.kind === "malformed") throw new RefError(`malformed reference: it ${shape.problem}`, at);
    if (shape.kind === "ref") {
      try {
        return resolveOne(shape.ref);
      } catch (e) {
        if (e instanceof RefError) e.at ??= at;
        throw e;
      }
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      setOwn(out, key, copy(node[key], depth + 1, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`));
    }
    return out;
  };

  try {
    return { ok: true, value: copy(args, 0, ""), refs };
  } catch (e) {
    if (!(e instanceof RefError)) throw e;
    return { ok: false, error: e.at === undefined ? e.message : `${e.message} (at argument ${e.at})` };
  }
}
