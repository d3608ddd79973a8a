/**
 * What a session object holds: `SessionRecord`, its schema's state (loaded, failed at startup, or no tables at
 * all), the session's own record (`meta.session`: tenant, id, agent, metadata, incarnation), the tombstone a
 * DELETE leaves, and the one guard every call on an existing session passes (`existing`).
 */
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { hasSchema, migrate } from "../storage/do-schema";
import { metaValue } from "../storage/meta";
import { write } from "../storage/sql";
import { incarnationOf, type SessionInfo, type TokenStamp } from "./rpc-types";

/** Key-value key of a deleted session's tombstone (`tombstone`): when it was deleted, epoch ms. */
const DELETED_AT = "deleted_at";

/** The answer for a session this object does not hold. */
export function missing() {
  return failure("not_found", "session not found");
}

export class SessionRecord {
  /** Where the session's rows are read and written (counted in debug mode). */
  readonly #storage: DurableObjectStorage;
  /** The object's own storage, uncounted: the schema checks and the tombstone. */
  readonly #raw: DurableObjectStorage;
  #schema = false;
  #memo: SessionInfo | null = null;
  #initError: unknown = null;

  constructor(storage: DurableObjectStorage, raw: DurableObjectStorage) {
    this.#storage = storage;
    this.#raw = raw;
  }

  /** Brings an existing schema up to date at startup; false when the object has no tables (nothing was created). */
  load(): boolean {
    if (!hasSchema(this.#raw.sql)) return false;
    migrate(this.#raw);
    this.#schema = true;
    return true;
  }

  /** The object's state could not be loaded: calls that need it throw `e` (see `ready`). */
  failed(e: unknown): void {
    this.#initError = e;
  }

  get broken(): boolean {
    return this.#initError !== null;
  }

  /** Whether the object has its tables (a session was created and not deleted since). */
  get hasTables(): boolean {
    return this.#schema;
  }

  /** Throws the startup error, if there was one. */
  ready(): void {
    if (this.#initError) throw this.#initError;
  }

  /** The session this object holds, or null. */
  info(): SessionInfo | null {
    if (!this.#schema) return null;
    if (!this.#memo) {
      const value = metaValue(this.#storage.sql, "session");
      this.#memo = value === null ? null : (JSON.parse(value) as SessionInfo);
    }
    return this.#memo;
  }

  /** The session row read straight from storage, whatever the schema state (throws when meta is unreadable). */
  stored(): SessionInfo | null {
    if (!hasSchema(this.#raw.sql)) return null;
    const value = metaValue(this.#raw.sql, "session");
    return value === null ? null : (JSON.parse(value) as SessionInfo);
  }

  ensureSchema(): void {
    if (this.#schema) return;
    migrate(this.#raw);
    this.#schema = true;
  }

  /**
   * Records a new session of this id (init, enqueueRun): a new incarnation, which session tokens minted for an
   * earlier one do not open.
   */
  create(info: SessionInfo): SessionInfo {
    const created = { ...info, incarnation: crypto.randomUUID() };
    this.record(created);
    return created;
  }

  /** Creates the tables on first use and records the session as `info` says. */
  record(info: SessionInfo): void {
    this.ensureSchema();
    write(this.#storage.sql, "INSERT INTO meta (key, value) VALUES ('session', ?)", JSON.stringify(info));
    this.#memo = info;
  }

  /**
   * The storage was wiped: the object may be addressed again, and must come back as a fresh, empty session (its
   * tables are created again by the next init or enqueueRun).
   */
  wiped(): void {
    this.#initError = null;
    this.#schema = false;
    this.#memo = null;
  }

  /**
   * When the session was deleted, kept in the emptied object (a timestamp, no tables): a webhook run admitted
   * before the delete (its worker saw the index row, then this object was wiped) must not bring the session
   * back when it arrives (`enqueueRun`); a session created after it, under the same id, is unaffected.
   */
  async tombstone(): Promise<void> {
    await this.#raw.put(DELETED_AT, Date.now());
  }

  /** When this object's last session was deleted (epoch ms), if it was. */
  deletedAt(): Promise<number | undefined> {
    return this.#raw.get<number>(DELETED_AT);
  }

  /**
   * The guard of every call on an existing session: the object's state must
   * have loaded (else its startup error is thrown) and the session must exist
   * (else 404), and not be another one than the session token the call came with was minted for
   * (`stamp`, see `foreign`); then `fn` runs with the session's info.
   */
  existing<T extends object>(
    fn: (info: SessionInfo) => Promise<Result<T>> | Result<T>,
    stamp?: TokenStamp,
  ): Promise<Result<T>> | Result<T> {
    this.ready();
    const info = this.info();
    if (!info || this.foreign(stamp)) return missing();
    return fn(info);
  }

  /**
   * Whether a session token (its `stamp`) was minted for another session of this id, deleted since: tokens are
   * stateless, so it would otherwise open this one. A token names the incarnation it was minted for, and each
   * create draws a new one, so a delete and re-create within a second is told apart too. A token minted before
   * tokens carried it (`inc` absent, at most TTL_MAX_S ago) is judged by its `iat` in whole seconds, as then: it
   * opens a session created in an earlier second or its own.
   */
  foreign(stamp: TokenStamp | undefined): boolean {
    if (stamp === undefined) return false;
    const info = this.info();
    if (info === null) return false;
    if (stamp.inc !== undefined) return stamp.inc !== incarnationOf(info);
    return stamp.iat < Math.floor(Date.parse(info.created_at) / 1000);
  }
}
