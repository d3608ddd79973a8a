/**
 * Request bodies: read with size and depth caps, then validated against their fixed schema by the
 * build-time engine (`json-schema/validate-fixed.ts`). A failure is a 400 naming the first issue.
 * Also `intParam`, the one parser of integer query parameters and headers (`limit`, `after`, `Last-Event-ID`).
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type FixedSchemaName, type SchemaIssue, validateFixed } from "../json-schema/index";
import { utf8Bytes } from "../storage/fit";
import { ApiError } from "./errors";

/**
 * An integer query parameter or header: `fallback` when absent or empty, else plain decimal digits within
 * [min, max] or a 400 naming it. Only digits: Number() would also take "0x10", "1e1" and " 5".
 */
export function intParam(raw: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ApiError(400, "invalid_request", `${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

/** Largest JSON body any route accepts; routes may set lower limits. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Deeper JSON is refused before it reaches any recursive code. */
const MAX_JSON_DEPTH = 64;

/**
 * Walks the parsed body once: its nesting depth, and whether any object has
 * an own "__proto__" key. JSON.parse makes that an ordinary own property,
 * but any later spread, merge or Object.assign would turn it into a
 * prototype change, so no body may carry one (nothing legitimate needs it).
 */
function inspect(value: unknown, limit: number): { depth: number; protoKey: boolean } {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop() as [unknown, number];
    if (d > max) max = d;
    if (max > limit) return { depth: max, protoKey: false };
    if (v && typeof v === "object") {
      if (Object.hasOwn(v, "__proto__")) return { depth: max, protoKey: true };
      for (const child of Object.values(v)) stack.push([child, d + 1]);
    }
  }
  return { depth: max, protoKey: false };
}

/**
 * The request body as text, never more than `maxBytes` of it. The first read goes through Hono's `bodyLimit`: a
 * Content-Length over the cap is refused at once, and a body without one (chunked) is counted as it streams in and
 * refused as soon as it passes the cap, so a 90 MB upload never sits in the isolate's memory. Hono keeps the text,
 * so a second read of the same request (the run routes read the raw body for its signature, then parse it) costs
 * nothing and is checked against its own cap.
 */
export async function readCapped(c: Context, maxBytes: number): Promise<string> {
  const tooLarge = (): never => {
    throw new ApiError(413, "payload_too_large", `request body exceeds ${maxBytes} bytes`);
  };
  if (!("text" in c.req.bodyCache)) {
    await bodyLimit({ maxSize: maxBytes, onError: tooLarge })(c, async () => {});
    return c.req.text();
  }
  const text = await c.req.text();
  if (utf8Bytes(text) > maxBytes) tooLarge();
  return text;
}

/** Reads and parses a JSON body with a size cap, a depth cap and a clear error for each failure. */
export async function readJson(c: Context, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const text = await readCapped(c, maxBytes);
  if (text.trim() === "") throw new ApiError(400, "invalid_json", "request body is empty; a JSON object is required");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, "invalid_json", `request body is not valid JSON: ${(e as Error).message}`);
  }
  const shape = inspect(value, MAX_JSON_DEPTH);
  if (shape.depth > MAX_JSON_DEPTH) {
    throw new ApiError(400, "invalid_request", `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (shape.protoKey)
    throw new ApiError(400, "invalid_request", 'the key "__proto__" is not allowed in request bodies');
  return value;
}

/** Where an issue is, as the API's messages name fields: "tools.0.name", or "body" for the whole body. */
function field(issue: SchemaIssue): string {
  if (issue.path === "(root)") return "body";
  return issue.path
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
}

/** Validates against a fixed JSON Schema; the first issue becomes a 400 naming the field. */
export function check<T>(schema: FixedSchemaName, value: unknown): T {
  const result = validateFixed(schema, value);
  if (!result.ok) {
    const first = result.issues[0];
    throw new ApiError(400, "invalid_request", first ? `${field(first)}: ${first.message}` : "body: invalid");
  }
  return value as T;
}

export async function readBody<T>(c: Context, schema: FixedSchemaName, maxBytes?: number): Promise<T> {
  return check<T>(schema, await readJson(c, maxBytes));
}
