/**
 * Debug counters for the turn path's storage work (never on in production):
 *
 * - D1: every statement sent through the `DB` binding is counted (a batch
 *   counts each of its statements) and, with SWITCHBOARD_DEBUG_D1_DELAY_MS,
 *   delayed, to stand in for a far-away primary. The worker reports the count
 *   per request in `x-debug-d1-statements`; the session object counts its own
 *   D1 statements too and hands them back with its answer to a call that may
 *   run one (a turn call, a state read, a compaction, a DELETE). A cache's
 *   refresh-ahead load, which no request waits for, goes around the count
 *   (`uncounted`).
 * - SQLite in the session object: statements run through `storage.sql.exec`,
 *   the rows they wrote (`SqlStorageCursor.rowsWritten`) and the rows they
 *   read (`rowsRead`: what a read's cost grows with, e.g. a `count(*)` reads
 *   every row it counts).
 *
 * Counting is on when SWITCHBOARD_DEBUG_CHECKS is true or a D1 delay is set.
 */
import type { Env } from "../env";
import { flag } from "../env-values";

export interface DebugCounts {
  d1_statements: number;
  sql_statements: number;
  sql_rows_written: number;
  sql_rows_read: number;
}

/** The artificial delay per D1 call, in ms (0 = none). */
function d1DelayMs(env: Env): number {
  const n = Number(env.SWITCHBOARD_DEBUG_D1_DELAY_MS ?? "");
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function countingEnabled(env: Env): boolean {
  return flag(env.SWITCHBOARD_DEBUG_CHECKS) || d1DelayMs(env) > 0;
}

/** Counts (and optionally delays) storage work; `since(mark())` gives the work of one request. */
export class Probe {
  #d1 = 0;
  #statements = 0;
  #rows = 0;
  #read = 0;
  /** Cursors whose rowsWritten and rowsRead are not yet added: a cursor's counts are final once it has been consumed. */
  #open: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];

  readonly #delayMs: number;

  constructor(delayMs: number) {
    this.#delayMs = delayMs;
  }

  async d1(statements: number): Promise<void> {
    this.#d1 += statements;
    if (this.#delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#delayMs));
  }

  sql<T extends Record<string, SqlStorageValue>>(cursor: SqlStorageCursor<T>): SqlStorageCursor<T> {
    this.#statements += 1;
    this.#open.push(cursor as unknown as SqlStorageCursor<Record<string, SqlStorageValue>>);
    return cursor;
  }

  mark(): DebugCounts {
    for (const c of this.#open) {
      this.#rows += c.rowsWritten;
      this.#read += c.rowsRead;
    }
    this.#open = [];
    return {
      d1_statements: this.#d1,
      sql_statements: this.#statements,
      sql_rows_written: this.#rows,
      sql_rows_read: this.#read,
    };
  }

  since(start: DebugCounts): DebugCounts {
    const now = this.mark();
    return {
      d1_statements: now.d1_statements - start.d1_statements,
      sql_statements: now.sql_statements - start.sql_statements,
      sql_rows_written: now.sql_rows_written - start.sql_rows_written,
      sql_rows_read: now.sql_rows_read - start.sql_rows_read,
    };
  }
}

/** A probe for this environment, or null when counting is off. */
export function probeFor(env: Env): Probe | null {
  return countingEnabled(env) ? new Probe(d1DelayMs(env)) : null;
}

class CountedStatement {
  readonly inner: D1PreparedStatement;
  readonly #probe: Probe;

  constructor(inner: D1PreparedStatement, probe: Probe) {
    this.inner = inner;
    this.#probe = probe;
  }
  bind(...values: unknown[]): CountedStatement {
    return new CountedStatement(this.inner.bind(...values), this.#probe);
  }
  async first(column?: string): Promise<unknown> {
    await this.#probe.d1(1);
    return column === undefined ? this.inner.first() : this.inner.first(column);
  }
  async run(): Promise<D1Result> {
    await this.#probe.d1(1);
    return this.inner.run();
  }
  async all(): Promise<D1Result> {
    await this.#probe.d1(1);
    return this.inner.all();
  }
  async raw(options?: { columnNames?: boolean }): Promise<unknown[]> {
    await this.#probe.d1(1);
    return options?.columnNames ? this.inner.raw({ columnNames: true }) : this.inner.raw();
  }
}

const unwrap = (s: D1PreparedStatement): D1PreparedStatement =>
  s instanceof CountedStatement ? s.inner : (s as D1PreparedStatement);

class CountedSession {
  readonly #inner: D1DatabaseSession;
  readonly #probe: Probe;

  constructor(inner: D1DatabaseSession, probe: Probe) {
    this.#inner = inner;
    this.#probe = probe;
  }
  prepare(query: string): D1PreparedStatement {
    return new CountedStatement(this.#inner.prepare(query), this.#probe) as unknown as D1PreparedStatement;
  }
  async batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    await this.#probe.d1(statements.length);
    return this.#inner.batch<T>(statements.map(unwrap));
  }
  getBookmark(): string | null {
    return this.#inner.getBookmark();
  }
}

class CountedD1 extends CountedSession {
  readonly db: D1Database;
  readonly #probe: Probe;

  constructor(db: D1Database, probe: Probe) {
    super(db as unknown as D1DatabaseSession, probe);
    this.db = db;
    this.#probe = probe;
  }
  async exec(query: string): Promise<D1ExecResult> {
    await this.#probe.d1(1);
    return this.db.exec(query);
  }
  withSession(constraint?: string): D1DatabaseSession {
    return new CountedSession(this.db.withSession(constraint), this.#probe) as unknown as D1DatabaseSession;
  }
}

/** The D1 binding with every statement counted by `probe`. */
export function countedD1(db: D1Database, probe: Probe): D1Database {
  return new CountedD1(db, probe) as unknown as D1Database;
}

/** The binding under a counted one (work a request does not wait for, so not in its figure); else `db`. */
export function uncounted(db: D1Database): D1Database {
  return db instanceof CountedD1 ? db.db : db;
}

/** DO storage whose `sql.exec` is counted by `probe`; everything else is the real object. */
export function countedStorage(storage: DurableObjectStorage, probe: Probe): DurableObjectStorage {
  const real = storage.sql;
  const sql = new Proxy(real, {
    get(target, prop) {
      if (prop === "exec") {
        return (query: string, ...params: SqlStorageValue[]) => probe.sql(target.exec(query, ...params));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "sql") return sql;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
