// The typed API client the e2e tests use: `openapi-fetch` over the types `openapi-typescript` generates from
// /openapi.json (test/helpers/openapi-types.ts; `npm run openapi:types` regenerates it, and
// test/e2e/openapi.test.ts fails when it is stale). Every JSON response is checked against the response
// schema the document gives for its operation and status, so a response the document misdescribes fails.
import SwaggerParser from "@apidevtools/swagger-parser";
import { type Schema, Validator } from "@cfworker/json-schema";
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./openapi-types.ts";

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

export type ApiClient = Client<paths>;

/** The served document with every $ref resolved (fetched once per base URL). */
const documents = new Map<string, Promise<Document>>();
export function servedDocument(baseUrl: string): Promise<Document> {
  let doc = documents.get(baseUrl);
  if (!doc) {
    doc = fetch(`${baseUrl}/openapi.json`)
      .then((r) => r.json())
      .then((raw) => SwaggerParser.dereference(raw as never) as unknown as Promise<Document>);
    documents.set(baseUrl, doc);
  }
  return doc;
}

/** Matches a concrete path (/v1/sessions/abc/messages) to its template (/v1/sessions/{id}/messages). */
function templateOf(doc: Document, pathname: string): string | undefined {
  return Object.keys(doc.paths).find((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return pattern.test(pathname);
  });
}

/** The documented JSON schema of this response, or why there is none. */
export function responseSchema(doc: Document, method: string, url: string, status: number): Schema | string {
  const pathname = new URL(url).pathname;
  const template = templateOf(doc, pathname);
  if (!template) return `no documented path for ${pathname}`;
  const operation = doc.paths[template]?.[method.toLowerCase()];
  if (!operation) return `no documented ${method} ${template}`;
  const response = operation.responses?.[String(status)];
  if (!response) return `${method} ${template} does not document status ${status}`;
  const schema = response.content?.["application/json"]?.schema;
  return schema ?? `${method} ${template} ${status} documents no JSON body`;
}

/** Throws when a JSON answer is not what the document gives for its operation and status. */
export function checkConformance(doc: Document, method: string, url: string, status: number, body: unknown): void {
  const schema = responseSchema(doc, method, url, status);
  if (typeof schema === "string") throw new Error(`response not in the OpenAPI document: ${schema}`);
  const result = new Validator(schema, "2020-12", false).validate(body);
  if (result.valid) return;
  throw new Error(
    `${method} ${new URL(url).pathname} ${status} does not match the document: ` +
      `${firstError(result)}\n${JSON.stringify(body).slice(0, 500)}`,
  );
}

type StreamItem = { properties?: { data?: { anyOf?: { contentSchema?: Schema }[] } } } & Schema;
type StreamDocument = Document & {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
};

/** The documented item schema (`x-itemSchema`) of the event stream this URL answers with this status, or why none. */
function streamItemSchema(doc: StreamDocument, url: string, status: number): StreamItem | string {
  const pathname = new URL(url).pathname;
  const template = templateOf(doc, pathname);
  if (!template) return `no documented path for ${pathname}`;
  for (const operation of Object.values(doc.paths[template] ?? {})) {
    const media = operation.responses?.[String(status)]?.content?.["text/event-stream"] as
      | { "x-itemSchema"?: StreamItem }
      | undefined;
    if (media?.["x-itemSchema"]) return media["x-itemSchema"];
  }
  return `${template} documents no event stream with status ${status}`;
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
 * Throws when a frame of a UI message stream is not what the document gives for the stream this URL answers:
 * the frame (its `id` and `data`) against the stream's item schema, and a JSON `data` against the schema of
 * its content (`UIMessageChunk`).
 */
export function checkStreamConformance(
  doc: Document,
  url: string,
  status: number,
  frames: { id: string | null; data: string; json: unknown }[],
): void {
  const item = streamItemSchema(doc as StreamDocument, url, status);
  if (typeof item === "string") throw new Error(`stream not in the OpenAPI document: ${item}`);
  const content = item.properties?.data?.anyOf?.find((branch) => branch.contentSchema)?.contentSchema;
  if (!content) throw new Error(`the stream item of ${new URL(url).pathname} documents no content schema`);
  const frameValidator = new Validator(item, "2020-12", false);
  const chunkValidator = new Validator(content, "2020-12", false);
  for (const frame of frames) {
    const framed = frameValidator.validate({ ...(frame.id === null ? {} : { id: frame.id }), data: frame.data });
    const chunk = frame.data === "[DONE]" ? framed : chunkValidator.validate(frame.json);
    const result = framed.valid ? chunk : framed;
    if (!result.valid) {
      throw new Error(
        `a frame of ${new URL(url).pathname} does not match the document: ${firstError(result)}\n${frame.data.slice(0, 500)}`,
      );
    }
  }
}

/** A middleware that fails a request whose JSON answer does not match the document. */
function conformance(doc: Document): Middleware {
  return {
    async onResponse({ request, response }) {
      if (!(response.headers.get("content-type") ?? "").includes("application/json")) return undefined;
      checkConformance(doc, request.method, request.url, response.status, await response.clone().json());
      return undefined;
    },
  };
}

/** A typed client authenticated with `key` whose every JSON response is checked against the document. */
export async function typedClient(baseUrl: string, key: string): Promise<ApiClient> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });
  client.use(conformance(await servedDocument(baseUrl)));
  return client;
}
