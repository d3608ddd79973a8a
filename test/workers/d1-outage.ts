// The suite's D1 in an outage, for tests of what the worker and the session object do when D1 cannot serve them:
// the statements a test picks by their SQL fail as an unreachable D1's do (`outage`, or `outageInPlace` for a binding
// an object already holds), run but lose their answer (`answerLost`), or hang until released (`held`, or
// `heldInPlace`); the others run. A batch holding a picked statement fails or hangs as a whole; replica sessions are
// picked alike. `recovered` is the suite's D1 back from an outage, counting the picked statements' calls.
import { env } from "cloudflare:workers";
import { patch } from "./helpers";

/** The calls that send work to D1. */
const CALLS = new Set<PropertyKey>(["first", "all", "run", "raw"]);

/**
 * A statement's SQL, read as the binding's batch reads it (workerd's D1PreparedStatement keeps it in `statement`),
 * whatever wraps the statement: the worker's own D1 wrappers are in between.
 */
const sqlOf = (s: D1PreparedStatement): string => (s as unknown as { statement: string }).statement;

/** `db` with each call of a statement `picks` chooses (a batch holding one too) made through `around`. */
function picking<T extends D1Database | D1DatabaseSession>(
  db: T,
  picks: (query: string) => boolean,
  around: (call: () => Promise<unknown>) => Promise<unknown>,
): T {
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        if (CALLS.has(key)) return (...args: unknown[]) => around(() => value.apply(target, args));
        return value.bind(target);
      },
    });
  const wrap = <D extends D1Database | D1DatabaseSession>(d: D): D =>
    new Proxy(d, {
      get(target, key) {
        if (key === "prepare") {
          return (query: string) => (picks(query) ? statement(target.prepare(query)) : target.prepare(query));
        }
        if (key === "batch") {
          return (list: D1PreparedStatement[]) =>
            list.some((s) => picks(sqlOf(s))) ? around(() => target.batch(list)) : target.batch(list);
        }
        if (key === "withSession") {
          return (constraint?: string) => wrap((target as D1Database).withSession(constraint));
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrap(db);
}

/** What an unreachable D1 rejects a call with. */
const LOST = "D1_ERROR: Network connection lost.";

/** `db` where each statement whose SQL `fails` picks rejects with `message`, counted (`attempts`). */
function failing(db: D1Database, fails: (query: string) => boolean, message: string) {
  let attempts = 0;
  const failed = picking(db, fails, async () => {
    attempts += 1;
    throw new Error(message);
  });
  return { db: failed, attempts: () => attempts };
}

/**
 * The suite's D1 where each statement whose SQL `fails` picks rejects with `message` (by default an unreachable
 * D1's), counted (`attempts`).
 */
export function outage(fails: (query: string) => boolean, message = LOST): { db: D1Database; attempts: () => number } {
  return failing(env.DB, fails, message);
}

/**
 * `db` itself, a binding an object already holds (the session object's, read in runInDurableObject), failing as
 * `outage`'s does until `restorePatches`: its `prepare`, `batch` and `withSession` are patched, calling its own.
 */
export function outageInPlace(
  db: D1Database,
  fails: (query: string) => boolean,
  message = LOST,
): { attempts: () => number } {
  const { db: failed, attempts } = failing(own(db), fails, message);
  patchInPlace(db, failed);
  return { attempts };
}

/** `db`'s own calls, taken before it is patched. */
function own(db: D1Database): D1Database {
  return {
    prepare: db.prepare.bind(db),
    batch: db.batch.bind(db),
    withSession: db.withSession.bind(db),
  } as unknown as D1Database;
}

/** Patches `db`'s `prepare`, `batch` and `withSession` with `by`'s, until `restorePatches`. */
function patchInPlace(db: D1Database, by: D1Database): void {
  patch(db, "prepare", by.prepare);
  patch(db, "batch", by.batch);
  patch(db, "withSession", by.withSession);
}

/** The suite's D1 where each statement whose SQL `picks` chooses is carried out, then fails as a lost connection. */
export function answerLost(picks: (query: string) => boolean): D1Database {
  return picking(env.DB, picks, async (call) => {
    await call();
    throw new Error(LOST);
  });
}

/** A D1 whose picked statements are held: how many wait now, their release, and the end of those released. */
interface Hold {
  waiting: () => number;
  release: () => void;
  /** Resolves once every statement held so far has run (after `release`), whatever it ended with. */
  landed: () => Promise<void>;
}

/**
 * The suite's D1 where each statement whose SQL `holds` picks waits, unanswered, until `release`, then runs (see
 * Hold); one picked after the release runs at once.
 */
export function held(holds: (query: string) => boolean): Hold & { db: D1Database } {
  return holding(env.DB, holds);
}

/** `db` where each statement `holds` picks waits, unanswered, until `release`, then runs (see `held`). */
function holding(db: D1Database, holds: (query: string) => boolean): Hold & { db: D1Database } {
  let waiting = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const runs: Array<Promise<unknown>> = [];
  const holdingDb = picking(db, holds, (call) => {
    waiting += 1;
    const run = gate.then(() => {
      waiting -= 1;
      return call();
    });
    runs.push(run.catch(() => {}));
    return run;
  });
  return { db: holdingDb, waiting: () => waiting, release, landed: async () => void (await Promise.all(runs)) };
}

/**
 * `db` itself, a binding an object already holds, holding what `holds` picks as `held`'s does, until
 * `restorePatches` (release what is held before that: a held call runs only once released).
 */
export function heldInPlace(db: D1Database, holds: (query: string) => boolean): Hold {
  const { db: holdingDb, ...hold } = holding(own(db), holds);
  patchInPlace(db, holdingDb);
  return hold;
}

/** The suite's D1 back from an outage: every statement runs, each call of one `counts` picks counted (`calls`). */
export function recovered(counts: (query: string) => boolean): { db: D1Database; calls: () => number } {
  let calls = 0;
  const db = picking(env.DB, counts, (call) => {
    calls += 1;
    return call();
  });
  return { db, calls: () => calls };
}

/** Every statement. */
export const everything = () => true;
