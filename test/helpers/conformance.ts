// The OpenAPI contract check the e2e and Workers tests share: the served document with its $refs resolved, and
// whether an answer is what it documents for its operation and status (its path, status, media type and
// documented headers, a JSON body against the response schema, a UI message stream frame by frame), and, checked
// strictly, whether a JSON body carries a key the document does not declare (its objects stay open to clients, so
// only a strict check holds the document to every field an answer carries). Paths outside /v1/ that the document
// does not list are not the API's (the web client's pages, /openapi.json and /docs) and are not checked. Each
// schema's validator is built once, so checking every answer of a suite stays cheap.
import { type Schema, type ValidationResult, Validator } from "@cfworker/json-schema";

type Media = { schema?: Schema; "x-itemSchema"?: StreamItem };
type Documented = { content?: Record<string, Media>; headers?: Record<string, { schema?: Schema }> };
type Operation = { responses?: Record<string, Documented> };
export type Document = { paths: Record<string, Record<string, Operation>> };
type StreamItem = { properties?: { data?: { anyOf?: { contentSchema?: Schema }[] } } } & Schema;

/** One frame of an event stream, as test/helpers/sse.ts parses it. */
export interface StreamFrame {
  id: string | null;
  data: string;
  json: unknown;
}

/**
 * The document with every $ref (all local: `#/components/…`) replaced by what it points to, in place (pass a copy
 * of what is served): one object per target, so each schema's validator is built once; a $ref with siblings (a
 * description) becomes a copy of its target with them. Written here rather than SwaggerParser's, which the Workers
 * runtime cannot load (CommonJS over an ES module).
 */
export function dereferenced(raw: unknown): Document {
  const walked = new WeakSet<object>();
  const target = (ref: string): unknown =>
    ref
      .slice(2)
      .split("/")
      .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], raw);
  const resolve = (node: unknown): unknown => {
    if (typeof node !== "object" || node === null) return node;
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === "string") {
      const { $ref, ...siblings } = record;
      const resolved = resolve(target($ref));
      if (resolved === undefined) throw new Error(`the document's ${$ref} points at nothing`);
      return Object.keys(siblings).length === 0 ? resolved : { ...(resolved as object), ...siblings };
    }
    if (walked.has(record)) return record;
    walked.add(record);
    for (const [key, value] of Object.entries(record)) record[key] = resolve(value);
    return record;
  };
  return resolve(raw) as Document;
}

/** The served document with every $ref resolved (fetched once per base URL). */
const documents = new Map<string, Promise<Document>>();
export function servedDocument(baseUrl: string): Promise<Document> {
  let doc = documents.get(baseUrl);
  if (!doc) {
    doc = fetch(`${baseUrl}/openapi.json`)
      .then((r) => r.json())
      .then(dereferenced);
    documents.set(baseUrl, doc);
  }
  return doc;
}

/** Each schema's validator (a resolved document shares one object per $ref, so one validator per schema). */
const validators = new WeakMap<object, Validator>();
function validate(schema: Schema, value: unknown): ValidationResult {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema, "2020-12", false);
    validators.set(schema, validator);
  }
  return validator.validate(value);
}

/** Each document's path templates as patterns (/v1/sessions/{id}/messages matches /v1/sessions/abc/messages). */
const patterns = new WeakMap<Document, Array<[string, RegExp]>>();
function templateOf(doc: Document, pathname: string): string | undefined {
  let list = patterns.get(doc);
  if (!list) {
    list = Object.keys(doc.paths).map((t) => [t, new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`)]);
    patterns.set(doc, list);
  }
  return list.find(([, pattern]) => pattern.test(pathname))?.[0];
}

/** Whether the document speaks for this URL: every /v1/ path, and any other path it lists (/healthz). */
export function isContractPath(doc: Document, url: string): boolean {
  const pathname = new URL(url).pathname;
  return pathname.startsWith("/v1/") || templateOf(doc, pathname) !== undefined;
}

/** What the document gives for this operation and status, or why it gives nothing. */
function documented(doc: Document, method: string, url: string, status: number): Documented | string {
  const pathname = new URL(url).pathname;
  const template = templateOf(doc, pathname);
  if (!template) return `no documented path for ${pathname}`;
  const operation = doc.paths[template]?.[method.toLowerCase()];
  if (!operation) return `no documented ${method} ${template}`;
  return operation.responses?.[String(status)] ?? `${method} ${template} does not document status ${status}`;
}

/** The documented JSON schema of this response, or why there is none. */
export function responseSchema(doc: Document, method: string, url: string, status: number): Schema | string {
  const response = documented(doc, method, url, status);
  if (typeof response === "string") return response;
  const schema = response.content?.["application/json"]?.schema;
  return schema ?? `${method} ${new URL(url).pathname} ${status} documents no JSON body`;
}

/**
 * Where `value` carries a key its schema does not declare, as JSON pointers (`#/keys/0/rate_limit_per_min`): a key
 * of an object whose schema lists `properties` and allows no others by name (no `additionalProperties`), walked
 * down the declared properties and `items`; under `anyOf`/`oneOf`, down the branches the value matches (a branch
 * that declares every key is enough). An object schema that lists no properties (a tool's `input`, `metadata`,
 * `usage`) is free-form and not walked.
 */
function undeclaredKeys(schema: Schema | boolean, value: unknown, at: string): string[] {
  if (typeof schema === "boolean") return [];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const found = branches.filter((b) => validate(b, value).valid).map((b) => undeclaredKeys(b, value, at));
    return found.find((keys) => keys.length === 0) ?? found[0] ?? [];
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined || Array.isArray(items)) return [];
    return value.flatMap((item, i) => undeclaredKeys(items, item, `${at}/${i}`));
  }
  const declared = schema.properties;
  if (typeof value !== "object" || value === null || !declared) return [];
  return Object.entries(value).flatMap(([key, field]) => {
    const property = declared[key];
    if (property !== undefined) return undeclaredKeys(property, field, `${at}/${key}`);
    return schema.additionalProperties === undefined ? [`${at}/${key}`] : [];
  });
}

/**
 * Throws when a JSON answer is not what the document gives for its operation and status; `strict`, also when it
 * carries a key the document does not declare (`undeclaredKeys`).
 */
export function checkConformance(
  doc: Document,
  method: string,
  url: string,
  status: number,
  body: unknown,
  strict = false,
): void {
  const schema = responseSchema(doc, method, url, status);
  if (typeof schema === "string") throw new Error(`response not in the OpenAPI document: ${schema}`);
  const what = `${method} ${new URL(url).pathname} ${status}`;
  const result = validate(schema, body);
  if (!result.valid) {
    throw new Error(
      `${what} does not match the document: ${firstError(result)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
  const undeclared = strict ? undeclaredKeys(schema, body, "#") : [];
  if (undeclared.length > 0)
    throw new Error(`${what} carries keys the document does not declare: ${undeclared.join(", ")}`);
}

/** A header's text as its schema reads it (a number for a numeric schema). */
function headerValue(schema: Schema, text: string): unknown {
  return schema.type === "integer" || schema.type === "number" ? Number(text) : text;
}

/**
 * Throws when an answer (of any media type; its JSON body is `checkConformance`'s) is not one the document gives
 * for its operation and status: an undocumented path, operation or status, a media type the status does not
 * document, or a documented header whose value its schema refuses.
 */
export function checkAnswer(doc: Document, method: string, url: string, status: number, headers: Headers): void {
  const response = documented(doc, method, url, status);
  if (typeof response === "string") throw new Error(`response not in the OpenAPI document: ${response}`);
  const what = `${method} ${new URL(url).pathname} ${status}`;
  const media = headers.get("content-type")?.split(";")[0]?.trim();
  if (media && !response.content?.[media]) throw new Error(`${what} does not document a ${media} body`);
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const text = headers.get(name);
    if (text === null || !header.schema) continue;
    const result = validate(header.schema, headerValue(header.schema, text));
    if (!result.valid) throw new Error(`${what} header ${name}: ${text} does not match the document`);
  }
}

/** The documented item schema (`x-itemSchema`) of the event stream this URL answers with this status, or why none. */
function streamItemSchema(doc: Document, url: string, status: number): StreamItem | string {
  const pathname = new URL(url).pathname;
  const template = templateOf(doc, pathname);
  if (!template) return `no documented path for ${pathname}`;
  for (const operation of Object.values(doc.paths[template] ?? {})) {
    const item = operation.responses?.[String(status)]?.content?.["text/event-stream"]?.["x-itemSchema"];
    if (item) return item;
  }
  return `${template} documents no event stream with status ${status}`;
}

/** Whether the document gives this URL's answer with this status as a UI message stream (an `x-itemSchema`). */
export function isDocumentedStream(doc: Document, url: string, status: number): boolean {
  return typeof streamItemSchema(doc, url, status) !== "string";
}

/**
 * The first validation error worth reading: not a composite keyword that only says "a branch failed", nor (under
 * a oneOf of chunk types) a branch rejecting the `type` of another chunk.
 */
function firstError(result: { errors: { keyword: string; instanceLocation: string; error: string }[] }): string {
  const leaves = result.errors.filter((e) => !["properties", "allOf", "anyOf", "oneOf", "items"].includes(e.keyword));
  const otherType = (e: { keyword: string; instanceLocation: string }) =>
    e.instanceLocation === "#/type" && (e.keyword === "const" || e.keyword === "pattern");
  const first = leaves.find((e) => !otherType(e)) ?? leaves[0];
  return `${first?.instanceLocation ?? ""} ${first?.error ?? ""}`;
}

/**
 * The check of one frame of the UI message stream this URL answers with this status (throws when the frame is not
 * what the document gives): the frame (its `id` and `data`) against the stream's item schema, and a JSON `data`
 * against the schema of its content (`UIMessageChunk`).
 */
export function streamFrameCheck(doc: Document, url: string, status: number): (frame: StreamFrame) => void {
  const item = streamItemSchema(doc, url, status);
  if (typeof item === "string") throw new Error(`stream not in the OpenAPI document: ${item}`);
  const content = item.properties?.data?.anyOf?.find((branch) => branch.contentSchema)?.contentSchema;
  if (!content) throw new Error(`the stream item of ${new URL(url).pathname} documents no content schema`);
  return (frame) => {
    const framed = validate(item, { ...(frame.id === null ? {} : { id: frame.id }), data: frame.data });
    const result = !framed.valid || frame.data === "[DONE]" ? framed : validate(content, frame.json);
    if (!result.valid) {
      throw new Error(
        `a frame of ${new URL(url).pathname} does not match the document: ${firstError(result)}\n${frame.data.slice(0, 500)}`,
      );
    }
  };
}

/** Throws at the first frame of a UI message stream that is not what the document gives (`streamFrameCheck`). */
export function checkStreamConformance(doc: Document, url: string, status: number, frames: StreamFrame[]): void {
  const check = streamFrameCheck(doc, url, status);
  for (const frame of frames) check(frame);
}
