/**
 * A failure of D1 itself, told apart from a bug of ours. `withD1Marked(env)` is the environment whose `DB` binding
 * (its read-replica sessions too) throws `D1Unavailable` when D1 fails one of its calls (a statement's first, all,
 * run or raw, a batch, an exec): unreachable, overloaded, reset, a lost connection. A statement's own error (our SQL,
 * a constraint, a value D1 cannot bind: `OWN_ERROR`) is thrown as D1 threw it, since it would fail the same way
 * again: it stays a bug (500), never a 503. `D1Unavailable.error` is the failure it stands for,
 * `database_unavailable` (503 with Retry-After, src/http/errors.ts), which the worker's onError answers
 * (src/http/app.ts) and the session object returns where a call of the worker needed D1 (`unlessUnavailable`,
 * `isUnavailable`).
 */
import { type ErrorInfo, type Failure, failure, type Result } from "../model/errors";

/** The failure of a call D1 could not serve: retrying shortly may succeed. */
const UNAVAILABLE: Failure = failure(
  "database_unavailable",
  "the service's database (D1) cannot be reached; retry shortly",
);

/**
 * What a statement's own error says (SQLite's result code, D1's type and column errors): the statement is wrong,
 * not D1 down. D1 writes SQLite's code at the end of its message ("D1_ERROR: no such table: x: SQLITE_ERROR").
 */
const OWN_ERROR = /\bSQLITE_(ERROR|CONSTRAINT|MISMATCH|RANGE|TOOBIG)\b|\bD1_(TYPE_ERROR|COLUMN_NOTFOUND)\b/;

/** What a D1 call threw when D1 failed it; `message` is D1's own (for the logs), `error` what the caller is told. */
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

function marked<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, key) {
      const value = Reflect.get(t, key, t);
      if (typeof value !== "function") return value;
      if (HANDLES.has(key)) return (...args: unknown[]) => marked(value.apply(t, args));
      if (CALLS.has(key)) {
        return async (...args: unknown[]) => {
          try {
            return await value.apply(t, args);
          } catch (e) {
            throw OWN_ERROR.test(e instanceof Error ? e.message : String(e)) ? e : new D1Unavailable(e);
          }
        };
      }
      return value.bind(t);
    },
  });
}

/** Each environment's marked copy: the worker's env is one object per isolate, so this is one Proxy, made once. */
const markedEnvs = new WeakMap<object, object>();

/** `env` with its D1 binding marked (see the file's note); `env` itself when it has none. */
export function withD1Marked<E extends { DB: D1Database }>(env: E): E {
  if (!env.DB) return env;
  const known = markedEnvs.get(env);
  if (known) return known as E;
  const copy = { ...env, DB: marked(env.DB) };
  markedEnvs.set(env, copy);
  return copy;
}

/** `work`'s result, or the failure D1Unavailable stands for when D1 failed it; any other error is thrown. */
export async function unlessUnavailable<R>(work: () => Promise<R>): Promise<R | Failure> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof D1Unavailable) return UNAVAILABLE;
    throw e;
  }
}

/** Whether `result` is the failure `unlessUnavailable` returns for a D1 that failed. */
export function isUnavailable(result: Result): result is Failure {
  return !result.ok && result.error === UNAVAILABLE.error;
}
