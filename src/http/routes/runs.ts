/**
 * Webhook-triggered runs over HTTP: POST /v1/agents/:agent/runs (an API key, or a Standard Webhooks signature
 * by one of the agent's secrets; 202 with the run's status, idempotent per webhook-id / Idempotency-Key),
 * GET /v1/runs/:id and POST /v1/runs/:id/approvals. A run the caller may not see answers 404, as a missing one.
 */
import { type Context, Hono } from "hono";
import type { AgentConfig } from "../../agents/types";
import { readAgent } from "../../d1/agents";
import { type RunRecord, runById } from "../../d1/runs";
import { flag } from "../../env";
import type { JsonObject } from "../../model/json";
import type { Part } from "../../model/message";
import { admitRun, handToSession, publicStatus } from "../../runs/admission";
import { verifySigned } from "../../runs/signature";
import type { ApprovalAnswer } from "../../session/approvals";
import { partsOversized } from "../../session/oversized";
import { checkOutboundUrl } from "../../tools/outbound";
import { actorOf } from "../access";
import { requireTenant, sha256Hex } from "../auth";
import { agentArg } from "../directory";
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
 * Who is asking. A bearer API key wins when present (`requireTenant` checked it: the run belongs to the key's
 * tenant). Otherwise the request must carry a valid Standard Webhooks signature by one of the agent's secrets;
 * such a run belongs to the agent's `webhook_tenant`, or to the dedicated tenant `webhook:<agent>` (no API key
 * can be issued for a name with a colon, so those sessions are isolated).
 */
async function authenticate(
  c: Context<AppEnv>,
  agent: AgentConfig | null,
  raw: string,
): Promise<{ tenant: string; auth: "key" | "signature" }> {
  if (c.get("principal")?.kind === "key") return { tenant: c.get("tenant"), auth: "key" };
  const signed = await verifySignature(c, agent, raw);
  return { tenant: signed.agent.webhook_tenant ?? `webhook:${signed.agent.name}`, auth: "signature" };
}

/** Checks the Standard Webhooks headers against the agent's secrets (401 otherwise). */
async function verifySignature(
  c: Context<AppEnv>,
  agent: AgentConfig | null,
  raw: string,
): Promise<{ id: string; agent: AgentConfig }> {
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
  if (id.length > 255) throw unauthorized("webhook-id must be at most 255 characters");
  // Where there is no secret to check against (no such agent or run, or an agent without secrets), a secret nobody
  // holds stands in: the same 401 after the same kind of work as a signature matching no secret of a real agent, so
  // whoever holds no secret cannot tell which agents (or run ids) exist or take signed webhooks.
  const secrets = agent && agent.webhook_secrets.length > 0 ? agent.webhook_secrets : [unguessable()];
  const verdict = verifySigned(secrets, { id, timestamp, signature }, raw);
  if (!verdict.ok) throw unauthorized(verdict.message);
  // Only a real agent's secret can have verified: nobody holds the stand-in.
  if (!agent) throw new Error("a stand-in webhook secret verified");
  return { id, agent };
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
 * whether the run exists or not, is `401`.
 */
async function approver(c: Context<AppEnv>, record: RunRecord | null, raw: string): Promise<string> {
  const missing = new ApiError(404, "not_found", "run not found");
  // Set by `requireTenant` when the request had an Authorization header: the admin key, or an API key.
  if (c.get("principal")) {
    const admin = c.get("principal")?.kind === "admin";
    if (!record || (!admin && record.tenant !== c.get("tenant"))) throw missing;
    return admin ? "admin" : actorOf(c);
  }
  // No such run is checked as an agent without secrets is (verifySignature): the same 401, so whoever holds no
  // secret cannot tell which run ids exist.
  const agent = record ? (await readAgent(c.env.DB, record.agent)).config : null;
  const signed = await verifySignature(c, agent, raw);
  if (record?.auth !== "signature") throw missing;
  return `webhook:${signed.id}`;
}

/** A webhook secret no sender holds (random per call), to check a signature against where no secret exists. */
function unguessable(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

function idempotencyKey(c: Context<AppEnv>): string | null {
  const key = c.req.header("webhook-id") ?? c.req.header("idempotency-key");
  if (key === undefined) return null;
  if (key.length === 0 || key.length > 255) {
    throw new ApiError(400, "invalid_request", "webhook-id / Idempotency-Key must be 1..255 characters");
  }
  return key;
}

export const runsRoutes = new Hono<AppEnv>()
  .post("/v1/agents/:agent/runs", requireTenant({ orSigned: true }), async (c) => {
    const raw = await rawBody(c);
    const { config: agent, epoch } = await readAgent(c.env.DB, c.req.param("agent"));
    const { tenant, auth } = await authenticate(c, agent, raw);
    if (!agent) throw new ApiError(404, "agent_not_found", `agent "${c.req.param("agent")}" does not exist`);
    const body = await readBody<RunBody>(c, "runBody", RUN_BODY_BYTES);
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
      idempotencyKey: idempotencyKey(c),
      bodyHash: await sha256Hex(raw),
      ...(body.session_id ? { sessionId: body.session_id } : {}),
      request: {
        input,
        ...(jsonSchema ? { json_schema: jsonSchema } : {}),
        ...(body.callback_url ? { callback_url: body.callback_url } : {}),
      },
      agentRead: { config: agent, epoch: epoch ?? 0 },
    });
    if (replayed) c.header("x-run-replayed", "true");
    return c.json(publicStatus(run), 202);
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
    const raw = await rawBody(c);
    const record = await runById(c.env.DB, c.req.param("id"));
    const by = await approver(c, record, raw);
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
