/**
 * A failure of D1 itself, told apart from a bug of ours. `withD1Marked(env)` is the environment whose `DB` binding
 * (its read-replica sessions too) throws `D1Unavailable` when D1 fails one of its calls (a statement's first, all,
 * run or raw, a batch, an exec) as D1 says it fails when retrying may succeed (`TRANSIENT`), or has not answered it
 * within `D1_TIMEOUT_MS` (a D1 that hangs). Any other error (our SQL, a constraint, a wrong number of bindings, an
 * empty statement) is thrown as D1 threw it: it would fail the same way again, a bug (500), never a 503.
 * `D1Unavailable.error` is the failure it stands for, `database_unavailable` (503 with Retry-After,
 * src/http/errors.ts), which the worker's onError answers and logs (src/http/app.ts) and the session object returns
 * where a call of the worker needed D1 (`unlessUnavailable`, which logs it there, once, and `isUnavailable`).
 *
 * Why an allow-list of D1's transient failures rather than a deny-list of statement errors: a statement error D1
 * words in a way a deny-list does not know (it ends with no SQLite code: "Wrong number of parameter bindings for SQL
 * query.", "No SQL statements detected.") was answered 503, retry shortly, for ever, and logged as an outage at warn
 * level; a transient failure the allow-list does not know is answered 500 and logged `unhandled` at error level, its
 * message in the line, where it is seen and added. Each failure D1 asks to be retried says so in words of its own
 * (Cloudflare's D1 docs, "Debug D1", "List of D1_ERRORs", whose retry guide matches messages the same way), and
 * workerd's binding adds its own for a lost or garbled answer (a "Network connection lost." of the runtime, an
 * answer that is not JSON).
 *
 * A call D1 has not answered within the bound is not called off: D1 may still carry it out. So a write failed either
 * way (a lost answer, a timeout) may or may not have been applied, which the failure's message says, and every route
 * that writes is made safe to retry (README "The turn path"). What a timed-out call ends with, once it does, is
 * logged (`database_late`): at error level when it is a statement's own error, a bug the timeout answered as an
 * outage.
 */
import { positive } from "../env-values";
import { type ErrorInfo, type Failure, failure, type Result } from "../model/errors";
import { log } from "../observability/log";

/** The failure of a call D1 could not serve: retrying shortly may succeed. */
const UNAVAILABLE: Failure = failure(
  "database_unavailable",
  "the service's database (D1) failed or did not answer in time; a change this request makes may or may not have " +
    "been made, and retrying the request is safe (a webhook run's only with its webhook-id or Idempotency-Key)",
);

/**
 * How long a D1 call may go unanswered (a D1 that hangs) before it fails as D1 being unavailable, from the call.
 * A statement here is a point read or write, a batch of a few, or a page of at most a few hundred rows: well under a
 * second, from a far-away primary too, and D1 itself lets one run 30 s. 5 s is past the isolate caches' wait for a
 * reload (3 s, `WAIT_MS` in src/http/directory.ts), so a reload a request gave up on still has 2 s to land and fill
 * the cache; it keeps the session object's DELETE, whose D1 batch runs inside blockConcurrencyWhile, far from the
 * 30 s after which the runtime resets an object; and it is the 503's own Retry-After, so a client that hit a hung
 * D1 has its answer, and may retry, within 10 s. `SWITCHBOARD_D1_TIMEOUT_MS` sets it (tests shorten it).
 */
const D1_TIMEOUT_MS = 5_000;

/**
 * What D1 (and workerd's binding in front of it) says of a failure that retrying may get past, written anywhere in
 * its message ("D1_ERROR: Network connection lost."): the connection lost or the answer garbled on the way, the
 * database's object reset (a code update, a storage error or timeout, its memory or CPU limit) or unreachable for a
 * while, the request cut off, the database overloaded, and workerd's own opaque "internal error; reference = …".
 */
const TRANSIENT = new RegExp(
  [
    "Network connection lost",
    "reset because its code was updated",
    "caused object to be reset",
    "exceeded its (memory|CPU time) limit and was reset",
    "Cannot resolve D1 DB due to transient issue",
    "client disconnected",
    "is overloaded",
    "internal error; reference =",
    "Failed to parse body as JSON",
  ].join("|"),
  "i",
);

/**
 * What a D1 call threw when D1 failed it, or left it unanswered past the bound; `message` is D1's own, or names the
 * bound (for the logs), `error` what the caller is told.
 */
export class D1Unavailable extends Error {
  readonly error: ErrorInfo = UNAVAILABLE.error;

  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "D1Unavailable";
  }
}

/** The methods of a binding, a session or a statement that send work to D1. */
const CALLS = new Set<PropertyKey>(["first", "all", "run", "raw", "batch", "exec"]);
/** The methods that hand out another handle (a statement, a bound statement, a replica session), marked as well. */
const HANDLES = new Set<PropertyKey>(["prepare", "bind", "withSession"]);

/** Whether D1's error `e` is one of its own failures that a retry may get past (`TRANSIENT`). */
const transient = (e: unknown) => TRANSIENT.test(e instanceof Error ? e.message : String(e));

/**
 * `call`'s outcome, or D1Unavailable once it has gone `ms` unanswered; then what it ends with is logged
 * (`database_late`, see the file's note), the call itself going on.
 */
async function bounded<R>(started: R | Promise<R>, ms: number, method: PropertyKey): Promise<R> {
  const call = Promise.resolve(started);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      call.then(
        () => log("warn", "database_late", { call: String(method), after_ms: ms, outcome: "answered" }),
        (e: unknown) =>
          log(transient(e) ? "warn" : "error", "database_late", {
            call: String(method),
            after_ms: ms,
            error: String(e),
          }),
      );
      reject(new D1Unavailable(new Error(`D1 did not answer within ${ms} ms (${String(method)})`)));
    }, ms);
  });
  try {
    return await Promise.race([call, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** `target` marked (see the file's note); `timeoutMs` is read at each call. */
function marked<T extends object>(target: T, timeoutMs: () => number): T {
  return new Proxy(target, {
    get(t, key) {
      const value = Reflect.get(t, key, t);
      if (typeof value !== "function") return value;
      if (HANDLES.has(key)) return (...args: unknown[]) => marked(value.apply(t, args), timeoutMs);
      if (CALLS.has(key)) {
        return async (...args: unknown[]) => {
          try {
            return await bounded(value.apply(t, args), timeoutMs(), key);
          } catch (e) {
            throw e instanceof D1Unavailable || !transient(e) ? e : new D1Unavailable(e);
          }
        };
      }
      return value.bind(t);
    },
  });
}

/** Each environment's marked copy: the worker's env is one object per isolate, so this is one Proxy, made once. */
const markedEnvs = new WeakMap<object, object>();

/**
 * `env` with its D1 binding marked (see the file's note); `env` itself when it has none. The bound is read from
 * `env` at each call, so a test may shorten it for an object already running (its env is made once per isolate).
 */
export function withD1Marked<E extends { DB: D1Database; SWITCHBOARD_D1_TIMEOUT_MS?: string }>(env: E): E {
  if (!env.DB) return env;
  const known = markedEnvs.get(env);
  if (known) return known as E;
  const copy = { ...env, DB: marked(env.DB, () => positive(env.SWITCHBOARD_D1_TIMEOUT_MS, D1_TIMEOUT_MS)) };
  markedEnvs.set(env, copy);
  return copy;
}

/**
 * `work`'s result, or the failure D1Unavailable stands for when D1 failed it; any other error is thrown. The failure
 * is logged here, as the worker's onError logs its own D1Unavailable: `database_unavailable` at warn level with D1's
 * message and `where` (the session, what the work was for), since the worker that answers it 503 sees only the
 * failure, not D1's words.
 */
export async function unlessUnavailable<R>(
  work: () => Promise<R>,
  where: { session: string; for: string },
): Promise<R | Failure> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof D1Unavailable)) throw e;
    log("warn", "database_unavailable", { ...where, error: e.message });
    return UNAVAILABLE;
  }
}

/** Whether `result` is the failure `unlessUnavailable` returns for a D1 that failed. */
export function isUnavailable(result: Result): result is Failure {
  return !result.ok && result.error === UNAVAILABLE.error;
}
