/**
 * Webhook-triggered runs over HTTP: POST /v1/agents/:agent/runs (an API key, or a Standard Webhooks signature
 * by one of the agent's secrets; 202 with the run's status, idempotent per webhook-id / Idempotency-Key),
 * GET /v1/runs/:id and POST /v1/runs/:id/approvals. A run the caller may not see answers 404, as a missing one.
 */
import { type Context, Hono } from "hono";
import { keyedBodyHashes } from "../../crypto/body-hash";
import { sha256Hex } from "../../crypto/sha256";
import { readAgent } from "../../d1/agents";
import { type RunRecord, runById } from "../../d1/runs";
import { flag } from "../../env-values";
import type { JsonObject } from "../../model/json";
import type { Part } from "../../model/message";
import { signatureSubject, withinSignatureFailureLimit } from "../../ratelimit/signature-failures";
import { admitRun, handToSession, publicStatus, replayRun } from "../../runs/admission";
import { checkHeaders, type SignedHeaders, verifySigned } from "../../runs/signature";
import type { ApprovalAnswer } from "../../session/approval-store";
import { partsOversized } from "../../session/oversized";
import type { RunView } from "../../session/runs/types";
import { MAX_KEY_CHARS } from "../../storage/limits";
import { checkOutboundUrl } from "../../tools/outbound";
import { actorOf } from "../access";
import { requireTenant } from "../auth";
import { agentArg, webhookSecrets } from "../directory";
import { ApiError, apiError } from "../errors";
import { sessionStub, turnCall, unwrap } from "../session-ref";
import type { AppEnv } from "../types";
import { check, readBody, readCapped, readJson } from "../validate";
import { respond, strictOutputSchema } from "./turns";

/** A run body is stored whole in D1 (to hand the run to its session again), so it stays well below the row limit. */
const RUN_BODY_BYTES = 1024 * 1024;

interface RunBody {
  input: string | Array<{ type: "text"; text: string }>;
  session_id?: string;
  json_schema?: unknown;
  callback_url?: string;
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "invalid_signature", message);
}

/** The raw body, size-capped before anything hashes it: the signature covers these exact bytes. */
function rawBody(c: Context<AppEnv>): Promise<string> {
  return readCapped(c, RUN_BODY_BYTES);
}

/**
 * The Standard Webhooks headers of a request without an Authorization (null with one: `requireTenant` checked the
 * API key or admin key), checked before anything else is read (its body, D1): all three present (else `401
 * unauthorized`), well formed and fresh (else `401 invalid_signature`, the answer to a signature that matches no
 * secret), so a request that cannot verify costs no body read and no D1 statement.
 */
function signedHeaders(c: Context<AppEnv>): SignedHeaders | null {
  if (c.get("principal")) return null;
  const id = c.req.header("webhook-id");
  const timestamp = c.req.header("webhook-timestamp");
  const signature = c.req.header("webhook-signature");
  if (!id || !timestamp || !signature) {
    throw new ApiError(
      401,
      "unauthorized",
      "send an Authorization: Bearer API key, or webhook-id, webhook-timestamp and webhook-signature headers",
    );
  }
  const headers = { id, timestamp, signature };
  const verdict = checkHeaders(headers);
  if (!verdict.ok) throw unauthorized(verdict.message);
  return headers;
}

/**
 * The request's raw body and, for a signed request (`signed`, null with an API key or the admin key), its signature
 * checked against the webhook secrets of the agent `agentOf` names (401 otherwise), read through the isolate cache
 * (directory.ts). No such agent, an agent without secrets and no such run (`agentOf` answering null) have none:
 * the same 401 after the same work as a signature matching no secret of a real agent (`verifySigned` always tries
 * as many secrets as an agent may have), so whoever holds no secret cannot tell which agents (or run ids) exist.
 * That work (up to 10 HMACs of 1 MiB) needs no credential, so a signed request is checked within its address's
 * limit on failed checks (ratelimit/signature-failures.ts): past it, `429 rate_limited` before the body or D1 is
 * read.
 */
async function verifiedBody(
  c: Context<AppEnv>,
  signed: SignedHeaders | null,
  agentOf: () => Promise<string | null>,
): Promise<string> {
  if (!signed) return rawBody(c);
  const subject = signatureSubject(c.req.header("cf-connecting-ip"));
  const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  return withinSignatureFailureLimit(c.env, waitUntil, subject, async () => {
    const raw = await rawBody(c);
    const agent = await agentOf();
    const verdict = verifySigned(agent === null ? [] : await webhookSecrets(c, agent), signed, raw);
    return verdict.ok ? { ok: true, value: raw } : { ok: false, error: unauthorized(verdict.message) };
  });
}

/**
 * Who may answer a run's approvals (`POST /v1/runs/{id}/approvals`), as the
 * actor recorded in the approval events:
 * - the admin key, for any run (`admin`): the operator's admin tool;
 * - an API key of the run's tenant (`key:<id>`), as on the session's own route;
 * - for a run started by a signed webhook, a request signed the same way with
 *   one of the agent's `webhook_secrets` (`webhook:<webhook-id>`): the system
 *   that started the run and received its signed `run.awaiting_approval`
 *   (a Slack bot, an admin tool) answers with the secret it already holds.
 * Anyone else learns nothing: another tenant's key, or a signature for a run
 * that a key started, is `404 not_found`; a signature that matches no secret,
 * whether the run exists or not, is `401` (`verifiedBody`, before this).
 * `signed`: the request's verified signature headers, null when it came with
 * the admin key or an API key.
 */
function approver(c: Context<AppEnv>, record: RunRecord | null, signed: SignedHeaders | null): string {
  const missing = new ApiError(404, "not_found", "run not found");
  if (!signed) {
    // Set by `requireTenant` when the request had an Authorization header: the admin key, or an API key.
    const admin = c.get("principal")?.kind === "admin";
    if (!record || (!admin && record.tenant !== c.get("tenant"))) throw missing;
    return admin ? "admin" : actorOf(c);
  }
  if (record?.auth !== "signature") throw missing;
  return `webhook:${signed.id}`;
}

/** A run start's answer: 202 with the run's status; a repeat's carries `x-run-replayed: true`. */
function accepted(c: Context<AppEnv>, run: RunView, replayed: boolean): Response {
  if (replayed) c.header("x-run-replayed", "true");
  return c.json(publicStatus(run), 202);
}

function idempotencyKey(c: Context<AppEnv>): string | null {
  const key = c.req.header("webhook-id") ?? c.req.header("idempotency-key");
  if (key === undefined) return null;
  if (key.length === 0 || key.length > MAX_KEY_CHARS) {
    throw new ApiError(400, "invalid_request", `webhook-id / Idempotency-Key must be 1..${MAX_KEY_CHARS} characters`);
  }
  return key;
}

export const runsRoutes = new Hono<AppEnv>()
  .post("/v1/agents/:agent/runs", requireTenant({ orSigned: true }), async (c) => {
    // A bearer API key wins when present (`requireTenant` checked it: the run belongs to the key's tenant).
    // Otherwise the request must carry a valid Standard Webhooks signature by one of the agent's secrets, checked
    // before the agent's config is read; such a run belongs to the agent's `webhook_tenant`, or to the dedicated
    // tenant `webhook:<agent>` (no API key can be issued for a name with a colon, so those sessions are isolated).
    const signed = signedHeaders(c);
    const raw = await verifiedBody(c, signed, async () => c.req.param("agent"));
    const body = await readBody<RunBody>(c, "runBody", RUN_BODY_BYTES);
    // A signed body is its bytes (the signature fixes them); an API key's is its JSON value, as a message's is.
    const hashes = signed ? { hash: await sha256Hex(raw) } : await keyedBodyHashes(body, raw);
    const key = idempotencyKey(c);
    // An API key's repeat of a run is that run whatever became of its agent since (deleted, its webhook_tenant
    // moved): answered before the agent is read and checked. A signed repeat is found by admitRun: its tenant is
    // the agent's, and a deleted agent has no secret left to verify it with.
    if (!signed && key !== null) {
      const repeated = await replayRun(c.env, { tenant: c.get("tenant"), agent: c.req.param("agent"), key }, hashes);
      if (repeated) return accepted(c, repeated, true);
    }
    const { config: agent, changes } = await readAgent(c.env.DB, c.req.param("agent"));
    if (!agent) throw new ApiError(404, "agent_not_found", `agent "${c.req.param("agent")}" does not exist`);
    const auth = signed ? "signature" : "key";
    const tenant = signed ? (agent.webhook_tenant ?? `webhook:${agent.name}`) : c.get("tenant");
    const jsonSchema: JsonObject | undefined =
      body.json_schema === undefined ? undefined : strictOutputSchema(body.json_schema);
    const input: Part[] = typeof body.input === "string" ? [{ type: "text", text: body.input }] : body.input;
    if (input.every((p) => p.type === "text" && p.text.trim() === "")) {
      throw new ApiError(400, "invalid_request", "input: must not be empty");
    }
    // The body cap (1 MiB) is above the parts budget (1,000,000 bytes as stored): refused here, as /messages
    // refuses it, not accepted and then failed when the run starts.
    const tooLarge = partsOversized(input);
    if (tooLarge) throw apiError(tooLarge.error);
    if (body.callback_url !== undefined) {
      const refused = checkOutboundUrl(body.callback_url, flag(c.env.SWITCHBOARD_ALLOW_PRIVATE_URLS));
      if (refused) throw new ApiError(400, "invalid_request", `callback_url: ${refused}`);
      if (agent.webhook_secrets.length === 0) {
        throw new ApiError(400, "invalid_request", "callback_url: the agent has no webhook_secrets to sign callbacks");
      }
      // Callbacks are signed with the agent's secrets, the ones its webhook owner verifies Switchboard's callbacks
      // with, and agents are shared by every tenant: were any key allowed one, a tenant could have Switchboard sign
      // a run.completed of its choosing and replay it to that owner's receiver. So only a signed webhook (it holds
      // a secret already) or a key of the agent's webhook_tenant asks for one; without a webhook_tenant, no key.
      if (auth === "key" && tenant !== agent.webhook_tenant) {
        throw new ApiError(
          403,
          "callback_not_allowed",
          "callback_url: callbacks are signed with the agent's webhook secrets, so only a request signed with one of them or an API key of the agent's webhook_tenant may ask for one",
        );
      }
    }
    const { run, replayed } = await admitRun(c.env, {
      tenant,
      agent: agent.name,
      auth,
      idempotencyKey: key,
      body: hashes,
      ...(body.session_id ? { sessionId: body.session_id } : {}),
      request: {
        input,
        ...(jsonSchema ? { json_schema: jsonSchema } : {}),
        ...(body.callback_url ? { callback_url: body.callback_url } : {}),
      },
      agentRead: { config: agent, epoch: changes?.epoch ?? 0 },
    });
    return accepted(c, run, replayed);
  })
  // The admin key reads any run (signed runs of the default tenant have no API key of their own).
  .get("/v1/runs/:id", requireTenant({ orAdmin: true }), async (c) => {
    const admin = c.get("principal")?.kind === "admin";
    const record = await runById(c.env.DB, c.req.param("id"));
    if (!record || (!admin && record.tenant !== c.get("tenant"))) throw new ApiError(404, "not_found", "run not found");
    // handToSession reads an accepted run's view from its session. A run recorded whose admission never reached
    // the session (the request died half-way, or enqueueRun failed, and the sender did not retry) is handed over
    // now rather than left to vanish: before any view is asked for, since that hand-over may be what creates
    // the session (asked first, an object never created answers as a deleted session).
    return c.json(await handToSession(c.env, record));
  })
  .post("/v1/runs/:id/approvals", requireTenant({ orAdmin: true, orSigned: true }), async (c) => {
    const signed = signedHeaders(c);
    // Read once: for a signed request, by the verification (whose secrets are the run's agent's), after its limit.
    let lookup: Promise<RunRecord | null> | undefined;
    const readRun = () => {
      lookup ??= runById(c.env.DB, c.req.param("id"));
      return lookup;
    };
    await verifiedBody(c, signed, async () => (await readRun())?.agent ?? null);
    const record = await readRun();
    const by = approver(c, record, signed);
    if (!record) throw new ApiError(404, "not_found", "run not found");
    const body = check<{ approvals: ApprovalAnswer[] }>("toolApprovalsBody", await readJson(c));
    const stub = sessionStub(c.env, record.tenant, record.session_id);
    const answer = unwrap(
      await turnCall(c, stub, {
        call: "answerApprovals",
        agent: await agentArg(c),
        answers: body.approvals,
        mode: "json",
        by,
        fromChat: false,
        run: record.id,
      }),
    );
    return respond(c, answer, false);
  });
