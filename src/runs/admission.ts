/**
 * Run admission in the worker: `admitRun` inserts a run into D1, deduplicated by its idempotency key (the same
 * key with another body is a 409), and hands it to its session object with `handToSession` (idempotent; never
 * again once the session accepted it) before returning; `replayRun` finds a repeat's run before anything of its
 * agent is read. Also `publicStatus`.
 */
import type { AgentRead } from "../agents/types";
import { type BodyHashes, sameBody } from "../crypto/body-hash";
import { newId } from "../crypto/new-id";
import { deleteRuns, insertRun, markRunAccepted, type RunRecord, runById, runByIdempotencyKey } from "../d1/runs";
import { deleteSessionRow, insertSession, isReplayGuard, sessionAgent, upsertSessionRow } from "../d1/sessions";
import { ApiError, apiError } from "../http/errors";
import type { WorkerEnv } from "../http/types";
import type { JsonObject } from "../model/json";
import type { Part } from "../model/message";
import type { RunSpec, RunStatus, RunView } from "../session/runs/types";
import type { Session } from "../session/session";
import { nowIso } from "../storage/sql";

/** The session's run methods as plain types (see SessionRpc in http/session-ref.ts for why). */
type RunsRpc = Pick<Session, "enqueueRun" | "runView">;

function runsStub(env: WorkerEnv, tenant: string, sessionId: string): RunsRpc {
  return env.SESSION.getByName(`${tenant}:${sessionId}`) as unknown as RunsRpc;
}

/** The request as stored in D1, enough to hand the run to its session again. */
interface RunRequest {
  input: Part[];
  json_schema?: JsonObject;
  callback_url?: string;
}

interface Admission {
  tenant: string;
  agent: string;
  auth: "key" | "signature";
  /** webhook-id or Idempotency-Key; null: every request is a new run. */
  idempotencyKey: string | null;
  /** The body's hash, stored with the run, and any earlier form a repeat's record may have been stored with. */
  body: BodyHashes & { hash: string };
  sessionId?: string;
  request: RunRequest;
  /** The agent as the worker read it to verify the webhook; the session keeps it as its copy. */
  agentRead: AgentRead;
}

function specOf(record: RunRecord): RunSpec {
  const req = JSON.parse(record.request) as RunRequest;
  return {
    id: record.id,
    agent: record.agent,
    input: req.input,
    ...(req.json_schema ? { json_schema: req.json_schema } : {}),
    ...(req.callback_url ? { callback_url: req.callback_url } : {}),
    ...(record.idempotency_key ? { webhook_id: record.idempotency_key } : {}),
    created_at: record.created_at,
  };
}

/**
 * Creates a run, or finds the one a repeated webhook-id already created.
 * D1's unique index on (tenant, agent, idempotency_key) is the arbiter: of
 * concurrent duplicates exactly one INSERT wins; the others read the winner's
 * row and hand the same run to the same session, where queuing is idempotent
 * too. 202 is answered only once the session holds the run, so a sender that
 * saw no 2xx retries and completes a half-done admission.
 */
export async function admitRun(env: WorkerEnv, a: Admission): Promise<{ run: RunView; replayed: boolean }> {
  const created_at = nowIso();
  const id = newId("run");
  const won = await insertRun(env.DB, {
    id,
    tenant: a.tenant,
    agent: a.agent,
    session_id: a.sessionId ?? newId("ses"),
    idempotency_key: a.idempotencyKey,
    body_hash: a.body.hash,
    auth: a.auth,
    request: JSON.stringify(a.request),
    created_at,
  });
  const record = won
    ? await runById(env.DB, id)
    : await runByIdempotencyKey(env.DB, a.tenant, a.agent, a.idempotencyKey);
  if (!record) throw new ApiError(409, "conflict", "the run was being created concurrently; retry");
  if (!won && !sameBody(record.body_hash, a.body)) {
    throw new ApiError(409, "idempotency_conflict", "this webhook-id was used with a different request body");
  }
  try {
    const run = await handToSession(env, record, a.agentRead);
    return { run, replayed: !won };
  } catch (e) {
    // A refused admission (4xx, the same for every duplicate) changes no state: the winner takes its
    // record back. After a 5xx the record stays, so a duplicate that did reach the session still has it.
    if (won && e instanceof ApiError && e.status < 500) {
      await deleteRuns(env.DB, [record.id]);
    }
    throw e;
  }
}

/**
 * A repeat of a run: the one recorded under this idempotency key with the same body, handed to its session as
 * `admitRun` hands a repeat's (a record its session never accepted is handed over now); null when there is none,
 * or it has another body (for `admitRun` to refuse). Asks nothing of the agent: the run stands whatever became of it.
 */
export async function replayRun(
  env: WorkerEnv,
  under: { tenant: string; agent: string; key: string },
  body: BodyHashes,
): Promise<RunView | null> {
  const record = await runByIdempotencyKey(env.DB, under.tenant, under.agent, under.key);
  if (!record || !sameBody(record.body_hash, body)) return null;
  return handToSession(env, record);
}

/** `GET /v1/runs/{id}`'s answer for a run its session once held but no longer does. */
const RUN_EXPIRED = "the run's record has expired from its session";
/** The answer for a run whose session was deleted after it was admitted. */
const SESSION_DELETED = "the run's session was deleted";

/**
 * Writes the session's index row (first use creates the session) and queues the run in it. Idempotent.
 * `agentRead`, when the caller has just read the agent, spares the session a D1 read when the run starts.
 * A run its session already accepted is never queued again: the session's retention (or its RUNS_KEPT cap)
 * may have removed its row while the D1 record lives on, and queuing it anew would run the input (and deliver
 * its callback) twice. Its view is read instead (`GET /v1/runs/{id}` reads every run through here), and a swept
 * one answers 404. A replay guard (the record a session's deletion kept, its request emptied) answers 404 as well,
 * accepted or not, and reaches no session: the id may have been created again since, and the deleted session's
 * run must not be read from, or queued into, the new one.
 */
export async function handToSession(env: WorkerEnv, record: RunRecord, agentRead?: AgentRead): Promise<RunView> {
  if (isReplayGuard(record)) throw new ApiError(404, "not_found", SESSION_DELETED);
  if (record.accepted_at) {
    const held = await runsStub(env, record.tenant, record.session_id).runView(record.id);
    if (!held.ok) throw new ApiError(404, "not_found", SESSION_DELETED);
    if (!held.run) throw new ApiError(404, "not_found", RUN_EXPIRED);
    return held.run;
  }
  const inserted = await insertSession(env.DB, {
    tenant: record.tenant,
    id: record.session_id,
    agent: record.agent,
    metadata: null,
    created_at: record.created_at,
  });
  const owner = await sessionAgent(env.DB, record.tenant, record.session_id);
  if (owner !== null && owner !== record.agent) {
    throw new ApiError(409, "agent_mismatch", `session "${record.session_id}" belongs to agent "${owner}"`);
  }
  const info = {
    tenant: record.tenant,
    id: record.session_id,
    agent: record.agent,
    created_at: record.created_at,
    metadata: null,
  };
  const res = await runsStub(env, record.tenant, record.session_id).enqueueRun(info, specOf(record), agentRead);
  if (!res.ok) {
    if ("held" in res) {
      // The object holds the session (agent_mismatch, a full queue), perhaps with no index row (a create whose answer
      // was lost): the row written just now names this run's agent and none of the session's metadata. It is made to
      // describe the object's session, as POST /v1/sessions does, or the session would be listed wrongly (or, were
      // the row deleted, not at all) and refuse its own agent's runs.
      const { held } = res;
      const metadata = held.metadata ? JSON.stringify(held.metadata) : null;
      await upsertSessionRow(env.DB, { ...held, metadata });
    } else if (inserted) {
      // The object holds no session (deleted after this run was admitted): no row is left behind, or the deleted
      // session would stay listed and its id taken.
      await deleteSessionRow(env.DB, record.tenant, record.session_id);
    }
    throw apiError(res.error);
  }
  if (res.created && !inserted) {
    // This run created the session on a row it found, not wrote: the create of the same id that wrote it may have
    // given it up since (its init failed while the object held no session, Session.abandonCreate), and the row left
    // may describe that create's request. It is written again from this session, as POST /v1/sessions does for a
    // row it found, or the session would never be listed nor walked by the retention cron. Before the run is marked
    // accepted: when D1 fails this write the run is queued but answered 503 (database_unavailable: a change may have
    // been made), and the sender's retry (same webhook-id / Idempotency-Key) hands it over again, which inserts the
    // row if it is gone, and marks it; until a retry (a keyless one is a new run) the session may go unlisted.
    await upsertSessionRow(env.DB, info);
  }
  if (!record.accepted_at) {
    await markRunAccepted(env.DB, record.id, nowIso());
  }
  return res.run;
}

export function publicStatus(view: RunView): { run_id: string; session_id: string; status: RunStatus } {
  return { run_id: view.run_id, session_id: view.session_id, status: view.status };
}
