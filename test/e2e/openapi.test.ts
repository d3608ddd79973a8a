// The contract: /openapi.json is a valid OpenAPI 3.1 document, the committed client types are generated from
// it, /docs renders it, and a whole session's life through the typed client answers what it documents.
import { randomBytes, randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { type Schema, Validator } from "@cfworker/json-schema";
import openapiTS, { astToString } from "openapi-typescript";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../scripts/lib/process.mjs";
import { type ApiClient, typedClient } from "../helpers/client.ts";
import { servedDocument as dereferenced } from "../helpers/conformance.ts";
import { chargeAgent } from "../helpers/fixtures.ts";
import { Api, Mock, uniqueModel } from "../helpers/index.ts";

const baseUrl = inject("baseUrl");
const api = new Api(baseUrl, inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const TYPES_FILE = path.join(repoRoot, "test", "helpers", "openapi-types.ts");

type Json = Record<string, unknown>;

async function servedDocument(): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function generatedTypes(doc: Record<string, unknown>): Promise<string> {
  const header = "// Generated from /openapi.json by openapi-typescript (`npm run openapi:types`). Do not edit.\n";
  // Objects the document leaves open (a tool's input_schema, metadata) are `Record<string, unknown>`, not `never`.
  return header + astToString(await openapiTS(doc as never, { emptyObjectsUnknown: true }));
}

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const doc = await servedDocument();
    expect(doc.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(doc as never)).resolves.toBeTruthy();
  });

  it("generates exactly the committed client types (npm run openapi:types regenerates them)", async () => {
    const fresh = await generatedTypes(await servedDocument());
    if (process.env.UPDATE_OPENAPI_TYPES === "1") await writeFile(TYPES_FILE, fresh);
    expect(fresh === (await readFile(TYPES_FILE, "utf8")), "test/helpers/openapi-types.ts is stale").toBe(true);
  });

  it("is rendered as interactive docs at /docs", async () => {
    const res = await fetch(`${baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("/openapi.json");
  });
});

describe("the typed client, every response checked against the document", () => {
  let tenantKey: string;
  beforeAll(async () => {
    tenantKey = (await api.createKey(`openapi-${Date.now()}`)).key;
  });

  /** An agent whose turn asks a person to approve a charge_card call (never made: the tests decline or wait). */
  async function approvalAgent(webhookSecret?: string): Promise<string> {
    const model = uniqueModel("openapi-run");
    const agent = `agent-${model}`;
    const config = chargeAgent("http://127.0.0.1:9", model);
    await api.putAgent(agent, webhookSecret ? { ...config, webhook_secrets: [webhookSecret] } : config);
    await mock.script(model, [
      { reply: { tool_calls: [{ name: "charge_card", input: { amount: 5 } }] } },
      { reply: { text: "Not charged." } },
    ]);
    return agent;
  }

  /** Waits until the run's turn waits for a person; returns its open approvals. */
  async function approvalsOf(client: ApiClient, runId: string) {
    for (;;) {
      const run = await client.GET("/v1/runs/{id}", { params: { path: { id: runId } } });
      if (run.data?.status === "awaiting_approval") return run.data.approvals ?? [];
      if (run.data?.status !== "queued" && run.data?.status !== "running") throw new Error(JSON.stringify(run.data));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The Standard Webhooks headers of `payload`, signed with `secret`. */
  function signed(secret: string, payload: string): Record<string, string> {
    const id = `msg_${randomUUID()}`;
    const now = new Date();
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, now, payload),
    };
  }

  it("creates an agent and a session, runs a turn and reads state, history and events", async () => {
    const admin = await typedClient(baseUrl, inject("adminKey"));
    const model = uniqueModel("openapi");
    const put = await admin.PUT("/v1/agents/{agent}", {
      params: { path: { agent: `agent-${model}` } },
      body: { model: { provider: "anthropic", name: model }, system: "Be brief." },
    });
    expect(put.response.status).toBe(201);

    const client = await typedClient(baseUrl, tenantKey);
    const created = await client.POST("/v1/sessions", { body: { agent: `agent-${model}` } });
    const session = created.data?.id as string;
    expect(session).toMatch(/\S/);

    await mock.script(model, [{ reply: { text: "Hello from the contract." } }]);
    const turn = await client.POST("/v1/sessions/{id}/messages", {
      params: { path: { id: session } },
      headers: { accept: "application/json" },
      body: { content: "hi" },
      parseAs: "json",
    });
    expect(turn.response.status).toBe(201);

    const state = await client.GET("/v1/sessions/{id}", { params: { path: { id: session } } });
    expect(state.data?.status).toBe("idle");
    const page = await client.GET("/v1/sessions/{id}/messages", { params: { path: { id: session } } });
    expect(page.data?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const events = await client.GET("/v1/sessions/{id}/events", { params: { path: { id: session } } });
    expect(events.data?.events.length).toBeGreaterThan(0);
    const token = await client.POST("/v1/sessions/{id}/tokens", {
      params: { path: { id: session } },
      body: { actions: ["read"] },
    });
    expect(token.data?.session_id).toBe(session);
  });

  it("deletes an agent with the documented answer (its name and deleted: true)", async () => {
    const admin = await typedClient(baseUrl, inject("adminKey"));
    const agent = `agent-${uniqueModel("openapi-delete")}`;
    await admin.PUT("/v1/agents/{agent}", {
      params: { path: { agent } },
      body: { model: { provider: "anthropic", name: "m" }, system: "Be brief." },
    });
    const deleted = await admin.DELETE("/v1/agents/{agent}", { params: { path: { agent } } });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({ name: agent, deleted: true });
  });

  it("refuses an agent whose tool schema is not an object schema with the documented 422 invalid_schema", async () => {
    const admin = await typedClient(baseUrl, inject("adminKey"));
    const agent = `agent-${uniqueModel("openapi-schema")}`;
    const put = await admin.PUT("/v1/agents/{agent}", {
      params: { path: { agent } },
      body: {
        model: { provider: "anthropic", name: "m" },
        tools: [{ name: "t", description: "d", input_schema: { type: "string" }, execution: { type: "client" } }],
      },
    });
    expect(put.response.status).toBe(422);
    expect(put.error?.error.code).toBe("invalid_schema");
  });

  it("answers a replayed run start with the run's status, awaiting_approval included", async () => {
    const client = await typedClient(baseUrl, tenantKey);
    const agent = await approvalAgent();
    const start = () =>
      client.POST("/v1/agents/{agent}/runs", {
        params: { path: { agent }, header: { "Idempotency-Key": `replay-${agent}` } },
        body: { input: "charge 5" },
      });
    const runId = (await start()).data?.run_id as string;
    await approvalsOf(client, runId);
    const replayed = await start();
    expect(replayed.response.status).toBe(202);
    expect(replayed.data).toMatchObject({ run_id: runId, status: "awaiting_approval" });
  });

  it("answers the state of a session paused for approval with its pause, as documented", async () => {
    const client = await typedClient(baseUrl, tenantKey);
    const agent = await approvalAgent();
    const start = await client.POST("/v1/agents/{agent}/runs", {
      params: { path: { agent } },
      body: { input: "charge 5" },
    });
    const runId = start.data?.run_id as string;
    const [approval] = await approvalsOf(client, runId);
    const run = await client.GET("/v1/runs/{id}", { params: { path: { id: runId } } });
    const state = await client.GET("/v1/sessions/{id}", { params: { path: { id: run.data?.session_id as string } } });
    expect(state.data?.pause?.approvals.map((a) => [a.approval_id, a.status])).toEqual([
      [approval?.approval_id, "pending"],
    ]);
    expect(state.data?.pause?.calls.map((c) => c.state)).toEqual(["pending"]);
  });

  it("answers a run's approvals with the JSON turn result, the one answer it documents, whatever the Accept", async () => {
    const client = await typedClient(baseUrl, tenantKey);
    const agent = await approvalAgent();
    const started = await client.POST("/v1/agents/{agent}/runs", {
      params: { path: { agent } },
      body: { input: "charge 5" },
    });
    const runId = started.data?.run_id as string;
    const [approval] = await approvalsOf(client, runId);
    const res = await api.request("POST", `/v1/runs/${runId}/approvals`, {
      key: tenantKey,
      headers: { accept: "text/event-stream" },
      body: { approvals: [{ approval_id: approval?.approval_id, approved: false, reason: "no" }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const doc = (await servedDocument()) as { paths: Record<string, Record<string, { responses: Json }>> };
    const answer = doc.paths["/v1/runs/{id}/approvals"]?.post?.responses["200"] as { content: Json };
    expect(Object.keys(answer.content)).toEqual(["application/json"]);
  });

  it("documents a Standard Webhooks signature, without a bearer key, as a way to start a run and answer its approvals", async () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const agent = await approvalAgent(secret);
    const runBody = JSON.stringify({ input: "charge 5" });
    const started = await api.request("POST", `/v1/agents/${agent}/runs`, {
      rawBody: runBody,
      headers: signed(secret, runBody),
    });
    expect(started.status).toBe(202);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    const admin = await typedClient(baseUrl, inject("adminKey"));
    const [approval] = await approvalsOf(admin, runId);
    const answerBody = JSON.stringify({ approvals: [{ approval_id: approval?.approval_id, approved: false }] });
    const answered = await api.request("POST", `/v1/runs/${runId}/approvals`, {
      rawBody: answerBody,
      headers: signed(secret, answerBody),
    });
    expect(answered.status).toBe(200);

    const doc = (await servedDocument()) as {
      paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
      components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
    };
    for (const [path, method] of [
      ["/v1/agents/{agent}/runs", "post"],
      ["/v1/runs/{id}/approvals", "post"],
    ] as const) {
      const alternatives = doc.paths[path]?.[method]?.security ?? [];
      const unkeyed = alternatives.filter((requirement) => !("bearer" in requirement));
      expect(unkeyed, `${method} ${path}`).toHaveLength(1);
      const [scheme] = Object.keys(unkeyed[0] ?? {});
      expect(doc.components.securitySchemes[scheme as string]).toMatchObject({
        type: "apiKey",
        in: "header",
        name: "webhook-signature",
      });
    }
  });

  it("answers /chat with the turn's state as JSON while the turn still waits for other answers", async () => {
    const client = await typedClient(baseUrl, tenantKey);
    const model = uniqueModel("openapi-chat");
    await api.putAgent(`agent-${model}`, chargeAgent("http://127.0.0.1:9", model));
    await mock.script(model, [
      {
        reply: {
          tool_calls: [
            { name: "charge_card", input: { amount: 5 } },
            { name: "charge_card", input: { amount: 6 } },
          ],
        },
      },
    ]);
    const session = (await api.createSession(tenantKey, `agent-${model}`)).id;
    const paused = await client.POST("/v1/sessions/{id}/messages", {
      params: { path: { id: session } },
      headers: { accept: "application/json" },
      body: { content: "charge 5 and 6" },
      parseAs: "json",
    });
    // The route documents a stream or JSON by Accept; this request asked for JSON.
    const open = typeof paused.data === "object" ? paused.data.pending_approvals?.[0] : undefined;
    // useChat's body after addToolApprovalResponse for one of the two: the other still waits.
    const answered = await client.POST("/v1/sessions/{id}/chat", {
      params: { path: { id: session } },
      body: {
        id: session,
        trigger: "submit-message",
        messages: [
          {
            id: "msg_one",
            role: "assistant",
            parts: [
              {
                type: "dynamic-tool",
                toolName: "charge_card",
                toolCallId: open?.tool_call_id,
                state: "approval-responded",
                input: open?.input,
                approval: { id: open?.approval_id, approved: false, signature: open?.signature },
              },
            ],
          },
        ],
      },
      parseAs: "json",
    });
    expect(answered.response.status).toBe(200);
    expect(answered.response.headers.get("content-type")).toContain("application/json");
    expect(answered.data).toMatchObject({ status: "awaiting_approval" });
  });

  it("documents the error answers: a bad body is a 400 with the error shape", async () => {
    const client = await typedClient(baseUrl, tenantKey);
    const bad = await client.POST("/v1/sessions", { body: { agent: "no spaces allowed" } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.code).toBe("invalid_request");
  });
});

describe("the documented query parameters are the ones the routes accept", () => {
  let tenantKey: string;
  let session: string;
  beforeAll(async () => {
    tenantKey = (await api.createKey(`openapi-params-${Date.now()}`)).key;
    const agent = `agent-${uniqueModel("openapi-params")}`;
    await api.putAgent(agent, { model: { provider: "anthropic", name: "m" }, system: "Be brief." });
    session = (await api.createSession(tenantKey, agent)).id;
  });

  /** A query value as a parameter of this schema reads it: a number where the schema is numeric and it reads as one. */
  const typed = (schema: Schema, raw: string): unknown =>
    schema.type === "integer" && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  // Hex, exponent and padded forms are not integers to the schema, so they must not be 200 either.
  const CANDIDATES = [
    "-1",
    "0",
    "1",
    "1.5",
    "abc",
    "200",
    "201",
    "1000",
    "1001",
    "9007199254740992",
    "0x10",
    "1e1",
    "%20%205",
  ];

  it.each([
    ["/v1/sessions", () => "/v1/sessions"],
    ["/v1/sessions/{id}/messages", () => `/v1/sessions/${session}/messages`],
    ["/v1/sessions/{id}/events", () => `/v1/sessions/${session}/events`],
  ])("GET %s answers 200 exactly for the limit and after values its schema allows", async (template, url) => {
    const doc = (await dereferenced(baseUrl)) as unknown as {
      paths: Record<string, { get: { parameters: { name: string; in: string; schema: Schema }[] } }>;
    };
    const params = doc.paths[template]?.get.parameters.filter((p) => p.in === "query") ?? [];
    expect(params.map((p) => p.name).sort()).toEqual(["after", "limit"]);
    const mismatches: string[] = [];
    for (const param of params) {
      const validator = new Validator(param.schema, "2020-12");
      for (const raw of CANDIDATES) {
        const res = await api.request("GET", `${url()}?${param.name}=${raw}`, { key: tenantKey });
        const documented = validator.validate(typed(param.schema, raw)).valid;
        if ((res.status === 200) !== documented) mismatches.push(`${param.name}=${raw}: ${res.status}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
