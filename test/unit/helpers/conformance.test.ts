// The contract check the e2e and Workers tests share (test/helpers/conformance.ts), over the real document: its
// $refs resolved as SwaggerParser resolves them, and an answer refused for an undocumented path, status, media
// type or header value, a JSON body or a stream frame its schema refuses, and, checked strictly, a key of a JSON body
// the document does not declare.
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { OPENAPI } from "../../../src/http/openapi";
import {
  checkAnswer,
  checkConformance,
  dereferenced,
  isContractPath,
  streamFrameCheck,
} from "../../helpers/conformance.ts";

const served = () => JSON.parse(JSON.stringify(OPENAPI)) as unknown;
const doc = dereferenced(served());
const at = (path: string) => `http://sb.test${path}`;
const json = new Headers({ "content-type": "application/json" });
const stream = new Headers({ "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" });

describe("dereferenced", () => {
  it("resolves the served document as SwaggerParser does", async () => {
    expect(doc).toEqual(await SwaggerParser.dereference(served() as never));
    expect(JSON.stringify(doc)).not.toContain("$ref");
  });
});

describe("isContractPath", () => {
  it("speaks for every /v1/ path and the documented /healthz, not for the web client's pages", () => {
    expect(isContractPath(doc, at("/v1/nowhere"))).toBe(true);
    expect(isContractPath(doc, at("/healthz"))).toBe(true);
    expect(isContractPath(doc, at("/"))).toBe(false);
    expect(isContractPath(doc, at("/assets/index.js"))).toBe(false);
  });
});

describe("checkAnswer", () => {
  it("takes a documented status, media type and header", () => {
    expect(() => checkAnswer(doc, "GET", at("/v1/sessions/s1"), 200, json)).not.toThrow();
    expect(() => checkAnswer(doc, "POST", at("/v1/sessions/s1/messages"), 200, stream)).not.toThrow();
    const limited = new Headers({ "content-type": "application/json", "retry-after": "3" });
    expect(() => checkAnswer(doc, "GET", at("/v1/sessions"), 429, limited)).not.toThrow();
  });

  it("refuses an undocumented path, operation or status", () => {
    expect(() => checkAnswer(doc, "GET", at("/v1/nowhere"), 404, json)).toThrow(/no documented path/);
    expect(() => checkAnswer(doc, "PATCH", at("/v1/sessions/s1"), 404, json)).toThrow(/no documented PATCH/);
    expect(() => checkAnswer(doc, "GET", at("/v1/sessions/s1"), 418, json)).toThrow(/does not document status 418/);
  });

  it("refuses a media type the status does not document", () => {
    expect(() => checkAnswer(doc, "GET", at("/v1/sessions/s1"), 200, stream)).toThrow(/text\/event-stream/);
  });

  it("refuses a documented header whose value its schema refuses", () => {
    const limited = new Headers({ "content-type": "application/json", "retry-after": "soon" });
    expect(() => checkAnswer(doc, "GET", at("/v1/sessions"), 429, limited)).toThrow(/header Retry-After/);
    const v2 = new Headers({ "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v2" });
    expect(() => checkAnswer(doc, "POST", at("/v1/sessions/s1/messages"), 200, v2)).toThrow(/x-vercel-ai/);
  });
});

describe("checkConformance", () => {
  it("refuses a JSON body its response schema refuses", () => {
    const error = { error: { code: "not_found", message: "no session" } };
    expect(() => checkConformance(doc, "GET", at("/v1/sessions/s1"), 404, error)).not.toThrow();
    expect(() => checkConformance(doc, "GET", at("/v1/sessions/s1"), 404, { error: "no session" })).toThrow(
      /does not match the document/,
    );
  });

  it("refuses, strictly, a key the document does not declare, however deep, naming where it is", () => {
    const part = { type: "text", text: "hi", colour: "red" };
    const page = { messages: [{ seq: 1, role: "user", origin: "client", parts: [part], created_at: "now" }] };
    const body = { ...page, next: null, compactions: [], turns: [] };
    expect(() => checkConformance(doc, "GET", at("/v1/sessions/s1/messages"), 200, body)).not.toThrow();
    expect(() => checkConformance(doc, "GET", at("/v1/sessions/s1/messages"), 200, body, true)).toThrow(
      "#/messages/0/parts/0/colour",
    );
  });

  it("takes, strictly, any key of an object the document leaves free-form", () => {
    const session = { id: "s1", agent: "a", created_at: "now", metadata: { anything: { at: "all" } } };
    expect(() => checkConformance(doc, "POST", at("/v1/sessions"), 201, session, true)).not.toThrow();
  });
});

describe("streamFrameCheck", () => {
  const check = streamFrameCheck(doc, at("/v1/sessions/s1/messages"), 200);
  const frame = (id: string | null, data: string) => ({
    id,
    data,
    json: data === "[DONE]" ? undefined : JSON.parse(data),
  });

  it("takes the frames of a turn", () => {
    expect(() => check(frame("1", JSON.stringify({ type: "start" })))).not.toThrow();
    expect(() => check(frame("2", JSON.stringify({ type: "text-delta", id: "t1", delta: "hi" })))).not.toThrow();
    expect(() => check(frame("2", "[DONE]"))).not.toThrow();
  });

  it("refuses a frame without an id, or a chunk the document does not give", () => {
    expect(() => check(frame(null, JSON.stringify({ type: "start" })))).toThrow(/does not match the document/);
    expect(() => check(frame("3", JSON.stringify({ type: "text-delta", id: "t1" })))).toThrow(
      /does not match the document/,
    );
  });
});
