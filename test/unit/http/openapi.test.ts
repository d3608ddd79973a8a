// The OpenAPI document and the router agree: every route the worker serves is documented (with the methods it
// answers), nothing documented is missing, and request bodies are the very schemas the routes validate with.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../src/http/app";
import * as bodies from "../../../src/http/bodies";
import { OPENAPI } from "../../../src/http/openapi";
import { UIMessageChunk } from "../../../src/http/ui-message-chunk";

const METHODS = new Set(["get", "post", "put", "delete", "patch"]);

/** "/v1/sessions/:id/chat/:chatId/stream" → "/v1/sessions/{id}/chat/{chatId}/stream" */
function template(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z]+)/g, "{$1}");
}

function served(): Set<string> {
  const out = new Set<string>();
  for (const r of buildApp().routes) {
    const method = r.method.toLowerCase();
    if (!METHODS.has(method) || r.path.includes("*")) continue; // middleware mounts
    out.add(`${method} ${template(r.path)}`);
  }
  return out;
}

function documented(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    for (const method of Object.keys(item)) if (METHODS.has(method)) out.add(`${method} ${path}`);
  }
  return out;
}

describe("the OpenAPI document", () => {
  it("documents every route the worker serves", () => {
    const missing = [...served()].filter((r) => !documented().has(r) && r !== "get /docs" && r !== "get /openapi.json");
    expect(missing).toEqual([]);
  });

  it("documents no route the worker does not serve", () => {
    const extra = [...documented()].filter((r) => !served().has(r));
    expect(extra).toEqual([]);
  });

  it("publishes the request-body schemas the routes validate with, not copies", () => {
    const schemas = OPENAPI.components.schemas as Record<string, unknown>;
    expect(schemas.MessageBody).toBe(bodies.messageBody);
    expect(schemas.ChatBody).toBe(bodies.chatBody);
    expect(schemas.RunBody).toBe(bodies.runBody);
    expect(schemas.AgentBody).toBe(bodies.agentBody);
    expect(schemas.ToolApprovalsBody).toBe(bodies.toolApprovalsBody);
  });

  it("names every chunk type of the UIMessageChunk schema in the stream's description", () => {
    const { responses } = OPENAPI.paths["/v1/sessions/{id}/stream"].get as {
      responses: Record<string, { content: Record<string, { schema: { description: string } }> }>;
    };
    const { description } = responses["200"]?.content["text/event-stream"]?.schema ?? { description: "" };
    const listed = /<UIMessageChunk JSON>` \(([^;]*);/.exec(description)?.[1]?.split(", ") ?? [];
    const named = (type: string) =>
      listed.some((n) => (n.endsWith("*") ? type.startsWith(n.slice(0, -1)) : n === type));
    const types = UIMessageChunk.oneOf.flatMap((c) => ("const" in c.properties.type ? [c.properties.type.const] : []));
    expect(types.filter((t) => !named(t))).toEqual([]);
  });

  it("documents 413 on every operation that takes a body (every body is read under a byte cap)", () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(OPENAPI.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { requestBody?: unknown; responses?: object }>,
      )) {
        if (METHODS.has(method) && op.requestBody && !("413" in (op.responses ?? {})))
          missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("documents 500 on every API operation (docs/API.md: internal_error, and DELETE's unreachable database)", () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(OPENAPI.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, { responses?: object }>)) {
        if (METHODS.has(method) && path !== "/healthz" && !("500" in (op.responses ?? {})))
          missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("documents 503 with Retry-After on every API operation (docs/API.md: directory_unavailable)", () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(OPENAPI.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, { responses?: Record<string, unknown> }>)) {
        if (METHODS.has(method) && path !== "/healthz" && op.responses?.["503"] === undefined)
          missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    const { headers } = OPENAPI.components.responses.Unavailable as { headers: Record<string, unknown> };
    expect(Object.keys(headers)).toEqual(["Retry-After"]);
  });

  it("limits every Idempotency-Key and webhook-id header to 1..255 characters, as the routes refuse beyond", () => {
    const found: string[] = [];
    const unbounded: string[] = [];
    for (const [path, item] of Object.entries(OPENAPI.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, { parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }> }>,
      )) {
        for (const p of op.parameters ?? []) {
          if (p.in !== "header" || !["idempotency-key", "webhook-id"].includes(p.name.toLowerCase())) continue;
          found.push(`${method} ${path} ${p.name}`);
          if (p.schema.minLength !== 1 || p.schema.maxLength !== 255) unbounded.push(`${method} ${path} ${p.name}`);
        }
      }
    }
    expect(found).toEqual(
      expect.arrayContaining([
        "post /v1/agents/{agent}/runs webhook-id",
        "post /v1/agents/{agent}/runs Idempotency-Key",
        "post /v1/runs/{id}/approvals webhook-id",
        "post /v1/sessions/{id}/messages Idempotency-Key",
      ]),
    );
    expect(unbounded).toEqual([]);
  });

  it("declares the x-run-replayed header of a run start's 202, which marks a repeated webhook-id", () => {
    const { responses } = OPENAPI.paths["/v1/agents/{agent}/runs"].post as {
      responses: Record<string, { headers?: Record<string, { schema: unknown }> }>;
    };
    expect(responses["202"]?.headers?.["x-run-replayed"]?.schema).toEqual({ const: "true" });
  });
});
