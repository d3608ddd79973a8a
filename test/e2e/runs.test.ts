// Webhook-triggered runs through real workerd: a Standard Webhooks sender (the `standardwebhooks`
// library on the Node side) triggers a run; the result comes back to a local receiver as a signed
// callback, verified with the same library.
import { randomBytes, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, Mock, startToolServer, type ToolCall, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const secret = `whsec_${randomBytes(32).toString("base64")}`;
let receiver: ToolServer;
let tenant: string;
let key: string;

interface RunView {
  run_id: string;
  session_id: string;
  status: string;
  result?: { output: string };
  structured_result?: unknown;
  callback?: { status: string; attempts: Array<{ status: number | null }> };
}

beforeAll(async () => {
  receiver = await startToolServer(() => ({ received: true }));
  tenant = `runs-${Date.now()}`;
  key = (await api.createKey(tenant)).key;
});

afterAll(async () => {
  await receiver?.close();
});

async function agentFor(model: string): Promise<string> {
  const agent = `e2e-run-${model}`;
  await api.putAgent(agent, {
    model: { provider: "anthropic", name: model },
    system: "test",
    webhook_secrets: [secret],
    webhook_tenant: tenant,
  } as never);
  return agent;
}

/** What a Standard Webhooks sender does: sign `${id}.${timestamp}.${body}` and send the three headers. */
function send(agent: string, body: unknown, signWith = secret, tamper?: string): Promise<Response> {
  const id = `msg_${randomUUID()}`;
  const payload = JSON.stringify(body);
  const now = new Date();
  return api.request("POST", `/v1/agents/${agent}/runs`, {
    rawBody: tamper ?? payload,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(signWith).sign(id, now, payload),
    },
  });
}

async function waitFor(id: string, done: (r: RunView) => boolean): Promise<RunView> {
  const until = Date.now() + 20_000;
  for (;;) {
    const r = await api.ok<RunView>("GET", `/v1/runs/${id}`, { key });
    if (done(r)) return r;
    if (Date.now() > until) throw new Error(`run ${id}: ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function headersOf(call: ToolCall): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.headers)) if (typeof v === "string") out[k] = v;
  return out;
}

describe("webhook-triggered runs (wrangler dev)", () => {
  it("runs a signed webhook and delivers a signed callback", async () => {
    const model = uniqueModel("run");
    const agent = await agentFor(model);
    await mock.script(model, [{ reply: { text: "Run result from workerd." } }]);
    const res = await send(agent, { input: "do the thing", callback_url: `${receiver.url}/hook` });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as RunView;
    expect(accepted.status).toBe("queued");
    const run = await waitFor(accepted.run_id, (r) => r.callback?.status === "delivered");
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("Run result from workerd.");
    expect(run.callback?.attempts.map((a) => a.status)).toEqual([200]);

    const calls = receiver.calls.filter((c) => c.path === "/hook");
    expect(calls).toHaveLength(1);
    const call = calls[0] as ToolCall;
    const payload = new Webhook(secret).verify(call.raw, headersOf(call)) as {
      type: string;
      data: { run_id: string; status: string; result: { output: string } };
    };
    expect(payload.type).toBe("run.completed");
    expect(payload.data.run_id).toBe(accepted.run_id);
    expect(payload.data.result.output).toBe("Run result from workerd.");
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(call.raw, headersOf(call)),
    ).toThrow();
  });

  it("refuses a tampered body and a foreign secret with 401", async () => {
    const agent = await agentFor(uniqueModel("run-bad"));
    const tampered = await send(agent, { input: "a" }, secret, JSON.stringify({ input: "b" }));
    expect(tampered.status).toBe(401);
    expect(((await tampered.json()) as { error: { code: string } }).error.code).toBe("invalid_signature");
    const foreign = await send(agent, { input: "a" }, `whsec_${randomBytes(32).toString("base64")}`);
    expect(foreign.status).toBe(401);
  });

  it("returns structured_result for a run with a json_schema first seen at request time", async () => {
    const model = uniqueModel("run-so");
    const agent = await agentFor(model);
    const prop = `f_${Date.now().toString(36)}`;
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_run_e2e", name: "structured_output", input: { [prop]: 7 } }] } },
    ]);
    const schema = { type: "object", properties: { [prop]: { type: "integer" } }, required: [prop] };
    const res = await send(agent, { input: "json please", json_schema: schema });
    expect(res.status).toBe(202);
    const run = await waitFor(
      ((await res.json()) as RunView).run_id,
      (r) => r.status !== "queued" && r.status !== "running",
    );
    expect(run.status).toBe("completed");
    expect(run.structured_result).toEqual({ [prop]: 7 });
  });
});
