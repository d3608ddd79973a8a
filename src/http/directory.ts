/**
 * The control-plane facts every session request needs — which tenant and
 * limit an API key has, whether the key that minted a session token is still
 * live, which browser origins a tenant allows, and the agent-config epoch
 * with its newest changes —
 * and the webhook secrets a signed run request is checked against, read from
 * D1 through isolate caches (see cache.ts), so a warm isolate serves the
 * steady-state turn path, and refuses a bad signature, without a D1 round trip.
 *
 * Bounds: a revoked key, a changed rate limit or CORS list, and a
 * reconfigured agent (its webhook secrets too) are seen within 60 s by every
 * isolate (plus read-replica lag), and at once by the isolate that made the
 * change; webhook secrets are reloaded after 5 s, so a busy agent's change is
 * seen within seconds.
 *
 * D1 down: an entry past its 60 s is still served while its reloads fail, for
 * up to 10 minutes more (`GRACE_MS`): a key revoked meanwhile keeps working
 * until D1 answers or that ends; past it, or with nothing cached, the request
 * is `503 directory_unavailable` with Retry-After. A D1 that hangs rather than
 * fails is waited for 3 s (`WAIT_MS`) from the reload's start: then the entry
 * is served as above, or, with none to serve, the request is that 503; the
 * reload goes on (waitUntil) and fills the cache if it lands before the D1 binding's own bound (5 s,
 * d1/unavailable.ts) fails it. A key's failed load is not
 * tried again for 5 s (one attempt per key per 5 s, whatever the traffic). The
 * agent epoch is only a hint: when it cannot be read the last one known (0 if
 * none) goes with the turn, which never fails for it. A cache whose loads
 * start failing is logged once, and once more when a load of it succeeds.
 *
 * Reads go to a D1 read replica (Sessions API, `first-unconstrained`; webhook
 * secrets only in the background, see `webhookSecrets`); a
 * "not found" from the replica is confirmed on the primary, so a key or origin
 * created a moment ago is never refused because a replica lags. Likewise a
 * replica's "live" for a key this isolate revoked, or "allowed" for an origin
 * of a tenant whose CORS list this isolate replaced, in the last 60 s is asked
 * again of the primary, so a lagging replica cannot bring it back here.
 */
import type { Context } from "hono";
import { type AgentChanges, readAgentChanges, readWebhookSecrets } from "../d1/agents";
import type { D1 } from "../d1/db";
import { type KeyInfo, liveKeyByHash, liveKeyById } from "../d1/keys";
import { originListed } from "../d1/tenants";
import type { Env } from "../env";
import { NAME_FORM } from "../model/name-form";
import { log } from "../observability/log";
import { uncounted } from "../storage/debug-counters";
import { RefreshCache } from "./cache";
import { ApiError } from "./errors";
import { originProblem } from "./origin-form";
import type { AppEnv } from "./types";

/** How long past its 60 s an entry is served while D1 cannot be read: a revocation's delay in a D1 outage. */
const GRACE_MS = 600_000;
/** After a failed load of a key, how long before it is tried again (and the Retry-After of a 503). */
const RETRY_MS = 5_000;
/**
 * How long a load of D1 that neither answers nor fails (a hung D1) is waited for, from its start: then a request
 * goes on with the entry it may still serve, or is 503 without one. A D1 read takes well under a second, from a
 * far-away primary too; 3 s keeps a hang from holding requests for D1's own timeout.
 */
const WAIT_MS = 3_000;
/**
 * The times of the key and origin caches, which hold this object as it is (the epoch and secrets caches hold copies
 * with a change of their own): a test shortens `waitMs` here for the D1 it holds unanswered, so that a request
 * waits a fraction of a second for it, not 3 s (test/workers/http/directory.test.ts).
 */
export const CACHE_TIMES = {
  softMs: 30_000,
  hardMs: 60_000,
  negativeMs: 5_000,
  graceMs: GRACE_MS,
  retryMs: RETRY_MS,
  waitMs: WAIT_MS,
};

/** Misses are cached apart and fewer: unknown keys or origins (a flood of bogus ones) never evict known ones. */
const MAX_MISSES = 1_000;
const keys = new RefreshCache<KeyInfo>(10_000, CACHE_TIMES, MAX_MISSES);
const origins = new RefreshCache<true>(10_000, CACHE_TIMES, MAX_MISSES);
/** Served however old while D1 cannot be read: a stale epoch only delays a reconfiguration, it refuses nothing. */
const changes = new RefreshCache<AgentChanges>(1, { ...CACHE_TIMES, graceMs: Number.POSITIVE_INFINITY });
/**
 * Agents' webhook secrets by agent name; an agent without any, or no such agent, is an empty list: a value like any
 * other, not a miss, kept and refreshed with the same times, so what a name's lookup costs does not tell whether
 * the agent exists. A value is at most 10 secrets of 500 characters. A flood of unknown names can push known
 * agents out, which are then read again: it costs a read, never changes an answer. Reloaded in the background
 * after 5 s, not 30: a secret just added (a rotation) is refused by other isolates for seconds, not a minute, and
 * a busy agent costs one read per 5 s, which nobody waits for.
 */
const secrets = new RefreshCache<readonly string[]>(1_000, { ...CACHE_TIMES, softMs: 5_000 });

/**
 * What this isolate changed (`k:<key id>` revoked, `o:<tenant>` CORS list replaced, `o:*` any tenant's, `a:<agent>`
 * stored or deleted), until when
 * (ms) a replica may still answer as before the change: the caches' bound.
 */
const changedHere = new Map<string, number>();

function markChanged(...what: string[]): void {
  const now = Date.now();
  for (const [k, until] of changedHere) if (until <= now) changedHere.delete(k);
  for (const w of what) changedHere.set(w, now + CACHE_TIMES.hardMs);
}

/** Whether a replica's answer about `what` can be trusted: this isolate changed nothing it may predate. */
const unchangedHere = (what: string) => (changedHere.get(what) ?? 0) <= Date.now();

/**
 * Runs `read` on a read replica; a null answer, or one `trusted` refuses, is asked again of the primary. A
 * refresh-ahead load (`inBackground`) is not counted in the request's debug D1 figure: nobody waits for it.
 */
async function replicaThenPrimary<T>(
  env: Env,
  inBackground: boolean,
  read: (db: D1) => Promise<T | null>,
  trusted: (value: T) => boolean = () => true,
) {
  const db = inBackground ? uncounted(env.DB) : env.DB;
  const replica = typeof db.withSession === "function" ? db.withSession("first-unconstrained") : db;
  const value = await read(replica);
  return value !== null && trusted(value) ? value : await read(db);
}

/** A replica's live key, unless this isolate revoked it a moment ago (the replica's answer may predate that). */
const notRevokedHere = (key: KeyInfo) => unchangedHere(`k:${key.id}`);

/** The caches (`keys`, `origins`, `epoch`, `secrets`) whose last load failed: logged as they start failing, once. */
const failing = new Set<string>();

/** `load` of cache `name`, logged when it fails while the cache's loads did not, and when it answers after they did. */
async function watched<T>(name: string, load: Promise<T>): Promise<T> {
  try {
    const value = await load;
    if (failing.delete(name)) log("info", "directory_recovered", { cache: name });
    return value;
  } catch (err) {
    if (!failing.has(name)) log("error", "directory_unavailable", { cache: name, error: String(err) });
    failing.add(name);
    throw err;
  }
}

/**
 * `key`'s value in `cache` (named `name` in logs), loaded by `load` when it must be. When D1 cannot answer (fails, or
 * has not answered in WAIT_MS) and no entry may be served instead (see cache.ts): `503 directory_unavailable`, to be
 * retried after RETRY_MS.
 */
async function lookup<V>(
  c: Context<AppEnv>,
  name: string,
  cache: RefreshCache<V>,
  key: string,
  load: (inBackground: boolean) => Promise<V | null>,
): Promise<V | null> {
  try {
    return await cache.get(key, (bg) => watched(name, load(bg)), background(c));
  } catch {
    throw new ApiError(503, "directory_unavailable", "the service's directory (D1) cannot be read; retry shortly", {
      "retry-after": String(RETRY_MS / 1000),
    });
  }
}

function background(c: Context<AppEnv>): (work: Promise<unknown>) => void {
  return (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // No execution context (a direct app.fetch): the refresh simply runs unawaited.
    }
  };
}

/** The live API key with this SHA-256 hash, or null. */
export function keyByHash(c: Context<AppEnv>, hash: string): Promise<KeyInfo | null> {
  return lookup(c, "keys", keys, `h:${hash}`, (bg) =>
    replicaThenPrimary(c.env, bg, (db) => liveKeyByHash(db, hash), notRevokedHere),
  );
}

/** The live API key `id` of `tenant` (the issuer of a session token), or null when revoked or unknown. */
export function keyById(c: Context<AppEnv>, id: string, tenant: string): Promise<KeyInfo | null> {
  return lookup(c, "keys", keys, `i:${tenant}:${id}`, (bg) =>
    replicaThenPrimary(c.env, bg, (db) => liveKeyById(db, id, tenant), notRevokedHere),
  );
}

/** Called by the isolate that revokes a key: its answers change at once here, whatever a replica still says. */
export function forgetKey(id: string): void {
  markChanged(`k:${id}`);
  keys.deleteWhere((_k, v) => v?.id === id);
}

/**
 * Whether `tenant` allows browser `origin` (null key = any tenant, for preflights): its lowercase string as a list
 * holds it (an app's own scheme's origin too, which the URL parser would give as "null"). An origin no list can hold
 * (origin-form.ts), `null` among them, is refused without a lookup.
 */
export async function originAllowed(c: Context<AppEnv>, tenant: string | null, origin: string): Promise<boolean> {
  const lower = origin.toLowerCase();
  if (originProblem(lower) !== null) return false;
  const list = `o:${tenant ?? "*"}`;
  const allowed = await lookup(c, "origins", origins, `${tenant ?? "*"}\n${lower}`, (bg) =>
    replicaThenPrimary(
      c.env,
      bg,
      async (db) => ((await originListed(db, tenant, lower)) ? (true as const) : null),
      () => unchangedHere(list),
    ),
  );
  return allowed === true;
}

/**
 * Called by the isolate that replaces a tenant's CORS list: its answers change at once here, whatever a replica
 * still says, for the tenant and for preflights (which ask whether any tenant allows an origin).
 */
export function forgetOrigins(tenant: string): void {
  markChanged(`o:${tenant}`, "o:*");
  origins.deleteWhere((k) => k.startsWith(`${tenant}\n`) || k.startsWith("*\n"));
}

/** What a turn brings when D1 holds no epoch row (never, once migrated): nothing changed. */
const NO_CHANGES: AgentChanges = { epoch: 0, since: 0, changed: [] };

/**
 * What a turn tells the session object about its agent: the agent-config epoch this isolate knows, with its newest
 * changes, one cached statement (see AgentChanges). The object re-reads its agent only when these say that agent
 * changed after its copy was read, or reach back less far than its copy. When D1 cannot be read, the last changes
 * known (the cache serves them however old), or none: a turn never fails for it; a reconfiguration is seen once D1
 * answers.
 */
export async function agentArg(c: Context<AppEnv>): Promise<AgentChanges> {
  try {
    const load = (bg: boolean) => watched("epoch", replicaThenPrimary(c.env, bg, readAgentChanges));
    const known = await changes.get("changes", load, background(c));
    return known ?? NO_CHANGES;
  } catch {
    return NO_CHANGES;
  }
}

/** Called with the changes a PUT/DELETE of an agent (or a session's creation) read: never replaces newer ones. */
export function noteAgentChanges(read: AgentChanges | null): void {
  if (read && read.epoch >= (changes.peek("changes")?.epoch ?? Number.NEGATIVE_INFINITY)) changes.set("changes", read);
}

/**
 * The agent's webhook secrets ([] when it has none or does not exist), to check a signature against before anything
 * else of the agent is read. A load a request waits for asks the primary, one statement whether the agent exists or
 * not: a replica's "not found" asked again of the primary would cost a missing agent a second round trip, which a
 * caller holding no secret could time. A refresh-ahead, which nobody waits for, reads a replica; an empty list, or a
 * list for an agent this isolate changed in the last 60 s, is asked again of the primary. A name no agent can have
 * (not of NAME_FORM) has none, read and kept nowhere: its form is public, so what it costs tells nothing.
 */
export async function webhookSecrets(c: Context<AppEnv>, agent: string): Promise<readonly string[]> {
  if (!NAME_FORM.test(agent)) return [];
  const found = await lookup(c, "secrets", secrets, agent, async (bg) => {
    if (!bg) return readWebhookSecrets(c.env.DB, agent);
    const listed = async (db: D1) => {
      const list = await readWebhookSecrets(db, agent);
      return list.length > 0 ? list : null;
    };
    return (await replicaThenPrimary(c.env, true, listed, () => unchangedHere(`a:${agent}`))) ?? [];
  });
  return found ?? [];
}

/** Called by the isolate that stores or deletes an agent (deleted: []): its signatures are checked by these at once. */
export function noteWebhookSecrets(agent: string, list: readonly string[]): void {
  markChanged(`a:${agent}`);
  secrets.set(agent, list);
}
