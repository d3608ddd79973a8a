/** Helpers for the webhook-run tests: agents with secrets, signed requests, polling a run. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { ADMIN, api, apiJson, script, tenantKey, uid } from "./helpers";

export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export interface RunSetup {
  tenant: string;
  key: string;
  agent: string;
  model: string;
  secrets: string[];
}

/** A tenant with a key, and an agent whose signed runs belong to that tenant. */
export async function runSetup(secrets = [newSecret()], extra: Record<string, unknown> = {}): Promise<RunSetup> {
  const tenant = uid("t");
  const key = await tenantKey(tenant);
  const agent = uid("agent");
  const model = uid("mock-anthropic");
  const put = await apiJson(`/v1/agents/${agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: { provider: "anthropic", name: model },
      system: "You are a run agent.",
      webhook_secrets: secrets,
      webhook_tenant: tenant,
      ...extra,
    },
  });
  if (put.status !== 201) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  return { tenant, key, agent, model, secrets };
}

/**
 * A caller's address (`cf-connecting-ip`) no other call shares: an IPv6 address in a /64 of its own within the
 * documentation prefix, so failed signature checks elsewhere in a file never count against this sender
 * (src/ratelimit/signature-failures.ts limits them per address, per /64 for IPv6).
 */
export function senderAddress(): string {
  const [a, b] = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${(a as number).toString(16)}:${(b as number).toString(16)}::1`;
}

export interface SignOptions {
  id?: string;
  /** Unix seconds of webhook-timestamp (default now). */
  ts?: number;
  secret?: string;
  /** Sent instead of the signed payload (tampering). */
  body?: string;
  /** The caller's address, `cf-connecting-ip` (default: one of its own, `senderAddress`). */
  address?: string;
}

/** A POST to `path` signed with the standardwebhooks library, as a sender (or an approver holding the secret) would. */
export function signedPost(path: string, secret: string, body: unknown, o: SignOptions = {}): Promise<Response> {
  const id = o.id ?? uid("msg");
  const ts = o.ts ?? Math.floor(Date.now() / 1000);
  const payload = JSON.stringify(body);
  return api(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": new Webhook(secret).sign(id, new Date(ts * 1000), payload),
      "cf-connecting-ip": o.address ?? senderAddress(),
    },
    body: o.body ?? payload,
  });
}

/** POST /v1/agents/{agent}/runs signed with the standardwebhooks library, as a sender would. */
export async function signedRun(s: RunSetup, body: unknown, o: SignOptions = {}): Promise<Response> {
  const id = o.id ?? uid("msg");
  const ts = o.ts ?? Math.floor(Date.now() / 1000);
  const payload = JSON.stringify(body);
  const signature = new Webhook(o.secret ?? (s.secrets[0] as string)).sign(id, new Date(ts * 1000), payload);
  return api(`/v1/agents/${s.agent}/runs`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signature,
      "cf-connecting-ip": o.address ?? senderAddress(),
    },
    body: o.body ?? payload,
  });
}

export interface Run {
  run_id: string;
  session_id: string;
  status: string;
  turn_id: string | null;
  resumes: number;
  started_at: string | null;
  ended_at: string | null;
  result?: { output: string; finish_reason: string | null; usage: Record<string, number> };
  structured_result?: unknown;
  error?: { code: string; message: string };
  callback?: {
    url: string;
    status: string;
    attempts: Array<{ attempt: number; at: string; status: number | null; error: string | null }>;
    next_attempt_at: string | null;
  };
}

export async function getRun(s: RunSetup, id: string): Promise<Run> {
  const res = await apiJson<Run>(`/v1/runs/${id}`, { key: s.key });
  if (res.status !== 200) throw new Error(`GET run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A new session of `s`'s agent holding `ids` as queued runs written straight into its object, with no job (so
 * nothing starts them); `input` is each row's stored input (JSON), `json_schema` its schema column.
 */
export async function sessionWithQueuedRuns(
  s: RunSetup,
  ids: readonly string[],
  row: { input?: string; json_schema?: string | null } = {},
): Promise<string> {
  const session_id = uid("ses");
  const created = await apiJson("/v1/sessions", {
    method: "POST",
    key: s.key,
    json: { agent: s.agent, id: session_id },
  });
  if (created.status !== 201) throw new Error(`session: ${created.status}`);
  await runInDurableObject(runStub(s, session_id), (_i, state) => {
    state.storage.transactionSync(() => {
      for (const id of ids) {
        state.storage.sql.exec(
          "INSERT INTO runs (id, agent, status, input, json_schema, created_at) VALUES (?, ?, 'queued', ?, ?, ?)",
          id,
          s.agent,
          row.input ?? "[]",
          row.json_schema ?? null,
          new Date().toISOString(),
        );
      }
    });
  });
  return session_id;
}

/**
 * Polls the run until `done` holds (the session's alarm drives it in the background), for up to 30 s: a run of a
 * large answer took 6 s on a loaded 2-core host, and the deadline only bounds how long a broken run takes to fail.
 */
export async function waitRun(s: RunSetup, id: string, done: (r: Run) => boolean, ms = 30_000): Promise<Run> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await getRun(s, id);
    if (done(r)) return r;
    if (Date.now() > until) throw new Error(`run ${id} still ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const ended = (r: Run) => r.status === "completed" || r.status === "failed";

export function runStub(s: RunSetup, sessionId: string) {
  return env.SESSION.getByName(`${s.tenant}:${sessionId}`);
}

export async function d1Runs(agent: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE agent = ?").bind(agent).first<{ n: number }>();
  return row?.n ?? 0;
}

export interface Delivery {
  at: number;
  headers: Record<string, string>;
  body: string;
  answered: number;
}

export async function deliveries(name: string): Promise<Delivery[]> {
  const res = await fetch(`${env.MOCK_URL}/_callback/${name}`);
  return ((await res.json()) as { deliveries: Delivery[] }).deliveries;
}

export { script };
