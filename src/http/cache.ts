/**
 * A bounded, isolate-local LRU cache with refresh-ahead, for control-plane
 * facts the turn path needs on every request (API keys, CORS origins, the
 * agent-config epoch) so that a warm isolate answers them without D1.
 *
 * An entry younger than `softMs` is served as is; between `softMs` and
 * `hardMs` it is served and reloaded in the background (`waitUntil`), so a
 * busy isolate never waits for D1; from `hardMs` on (or when missing) the
 * request waits for the load. A `null` value (not found) lives `negativeMs`,
 * in an LRU of its own (`maxMisses`), so a flood of unknown keys evicts only
 * other misses, never a value.
 * The load is told whether it runs in the background (nobody waits for it).
 * Concurrent loads of one key share one promise. So a change made elsewhere
 * is seen within `hardMs`; the isolate that makes it updates the cache at once.
 *
 * A load that fails (the store cannot be reached) changes no entry: an entry
 * past its bound is still served for `graceMs` more while its reloads fail
 * (a reload that answers, "not found" included, replaces it as ever), and
 * `get` throws once there is no entry to serve. After a failed load of a key
 * no other load of it starts for `retryMs` (a sick store gets one attempt per
 * key per `retryMs`, not one per request): meanwhile its entry is served
 * without one, or, with none to serve, `get` throws `LoadFailedRecently`.
 *
 * A load that hangs (the store neither answers nor fails) is waited for
 * `waitMs` from its start, whichever requests share it: then an entry within
 * its grace is served as if the load had failed, and with none `get` throws
 * `LoadTooSlow`; the load itself goes on (handed to `background` by the request
 * that started it, and by no other: a request's `waitUntil` must not be held
 * by work another request owns) and fills the cache when it lands. A request
 * that comes once a load has run `waitMs` does not wait for it at all.
 * A load lives `waitMs + retryMs` at most: one that has not settled by then
 * (Workers cancels the I/O of the request that started it, and it never will)
 * is given up: it counts as failed when its waiters gave up on it (`waitMs`
 * after its start), so the next request starts a fresh load at once, and what
 * it ends with, if it ever does, changes nothing.
 *
 * At most `maxLoads` loads are under way at once: a store that hangs while requests name ever new keys (a flood of
 * made-up keys) would otherwise keep one pending load per key, for good. A load past its life is dropped when the
 * next load starts, whatever its key, and a load that would be one too many is not started: its key is served its
 * entry within grace, and with none `get` throws `TooManyLoads`.
 */

interface CacheTimes {
  softMs: number;
  hardMs: number;
  negativeMs: number;
  /** How long past its bound (`hardMs`, a miss's `negativeMs`) an entry is still served while its reloads fail. */
  graceMs: number;
  /** After a failed load of a key, how long before another load of it may start. */
  retryMs: number;
  /** How long from its start a load is waited for before the requests waiting go on without it (see above). */
  waitMs: number;
}

/** What `get` throws, without loading, for a key whose load failed less than `retryMs` ago and that has no entry to serve. */
export class LoadFailedRecently extends Error {
  constructor(key: string) {
    super(`the last load of ${key} failed a moment ago`);
    this.name = "LoadFailedRecently";
  }
}

/** What `get` throws for a key with no entry to serve whose load has run `waitMs` without an answer (it goes on). */
class LoadTooSlow extends Error {
  constructor(key: string) {
    super(`the load of ${key} has not answered yet`);
    this.name = "LoadTooSlow";
  }
}

/** What `get` throws for a key with no entry to serve while `maxLoads` loads are under way (none is started). */
class TooManyLoads extends Error {
  constructor(key: string) {
    super(`too many loads under way to load ${key}`);
    this.name = "TooManyLoads";
  }
}

/** What a wait for a load ends with when the load took longer than `waitMs`. */
const SLOW = Symbol("slow");

/** A load under way, with when it started (ms); `givenUp` once it has outlived its life (see above). */
interface Loading<V> {
  promise: Promise<V | null>;
  at: number;
  givenUp: boolean;
}

interface Entry<V> {
  value: V | null;
  at: number;
}

export class RefreshCache<V> {
  /** Found values, bounded by `max`; misses (null) are kept apart, bounded by `maxMisses`. */
  #entries = new Map<string, Entry<V>>();
  #misses = new Map<string, Entry<V>>();
  #loading = new Map<string, Loading<V>>();
  /** Bumped by deleteWhere: a load that started before an invalidation must not store what it read. */
  #generation = 0;
  /** Bumped per key by `set`: a load that started before a write of that key must not overwrite it. */
  #writes = new Map<string, number>();
  /** Keys whose last load failed, with when it did; oldest first, bounded by `max + maxMisses`. */
  #failed = new Map<string, number>();
  readonly #max: number;
  readonly #times: CacheTimes;
  readonly #maxMisses: number;
  readonly #maxLoads: number;

  constructor(max: number, times: CacheTimes, maxMisses = max, maxLoads = 1_000) {
    this.#max = max;
    this.#times = times;
    this.#maxMisses = maxMisses;
    this.#maxLoads = maxLoads;
  }

  async get(
    key: string,
    load: (inBackground: boolean) => Promise<V | null>,
    background?: (work: Promise<unknown>) => void,
  ): Promise<V | null> {
    const e = this.#entries.get(key) ?? this.#misses.get(key);
    if (e) {
      const age = Date.now() - e.at;
      const bound = e.value === null ? this.#times.negativeMs : this.#times.hardMs;
      if (age < bound) {
        this.#touch(key, e);
        const due = e.value !== null && age >= this.#times.softMs;
        if (due && background && !this.#running(key) && this.#mayLoad(key) && this.#mayStart()) {
          background(this.#start(key, () => load(true)).promise.catch(() => {}));
        }
        return e.value;
      }
      if (age < bound + this.#times.graceMs) return this.#reloadOrServe(key, e, load, background);
    }
    if (!this.#mayLoad(key)) throw new LoadFailedRecently(key);
    return this.#waitFor(key, () => load(false), background);
  }

  /**
   * An entry past its bound, within its grace: reloaded, and served still when that load fails (now or a moment
   * ago) or has run `waitMs` without an answer.
   */
  async #reloadOrServe(
    key: string,
    e: Entry<V>,
    load: (inBackground: boolean) => Promise<V | null>,
    background?: (work: Promise<unknown>) => void,
  ): Promise<V | null> {
    if (this.#mayLoad(key)) {
      try {
        return await this.#waitFor(key, () => load(false), background);
      } catch (err) {
        // Not served if deleteWhere dropped it meanwhile (a key revoked here); what `set` put meanwhile is.
        const now = this.#entries.get(key) ?? this.#misses.get(key);
        if (now === undefined) throw err;
        return now.value;
      }
    }
    this.#touch(key, e);
    return e.value;
  }

  /** Most recently used goes last; the first key is the one evicted. */
  #touch(key: string, e: Entry<V>): void {
    const lru = e.value === null ? this.#misses : this.#entries;
    lru.delete(key);
    lru.set(key, e);
  }

  /** Whether a load of `key` may start (or is running, to be shared): none failed in the last `retryMs`. */
  #mayLoad(key: string): boolean {
    if (this.#running(key)) return true;
    const failed = this.#failed.get(key);
    return failed === undefined || Date.now() - failed >= this.#times.retryMs;
  }

  /**
   * The load of `key` under way, if any within its life (`waitMs + retryMs`); one past it is given up: dropped, and
   * noted as failed `waitMs` after its start, when its waiters gave up on it.
   */
  #running(key: string): Loading<V> | undefined {
    const running = this.#loading.get(key);
    if (running === undefined || Date.now() - running.at < this.#times.waitMs + this.#times.retryMs) return running;
    running.givenUp = true;
    this.#loading.delete(key);
    this.#noteFailed(key, running.at + this.#times.waitMs);
    return undefined;
  }

  /**
   * Whether another load may start: fewer than `maxLoads` under way, once those past their life are dropped (the
   * oldest first: the map holds loads in the order they started).
   */
  #mayStart(): boolean {
    for (const key of this.#loading.keys()) if (this.#running(key) !== undefined) break;
    return this.#loading.size < this.#maxLoads;
  }

  /**
   * The load of `key` (the one under way, or started now), waited for until it has run `waitMs`; past that
   * LoadTooSlow is thrown, and a load this call started is handed to `background` to go on.
   */
  async #waitFor(
    key: string,
    load: () => Promise<V | null>,
    background?: (work: Promise<unknown>) => void,
  ): Promise<V | null> {
    const running = this.#running(key);
    if (!running && !this.#mayStart()) throw new TooManyLoads(key);
    const { promise: p, at: started } = running ?? this.#start(key, load);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<typeof SLOW>((resolve) => {
      timer = setTimeout(() => resolve(SLOW), Math.max(0, started + this.#times.waitMs - Date.now()));
    });
    try {
      const first = await Promise.race([p, slow]);
      if (first !== SLOW) return first;
      if (!running) background?.(p.catch(() => {}));
      throw new LoadTooSlow(key);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A new load of `key`, the one under way from now on (the caller has checked that none is). */
  #start(key: string, load: () => Promise<V | null>): Loading<V> {
    const generation = this.#generation;
    const writes = this.#writes.get(key) ?? 0;
    const p: Promise<V | null> = load()
      .then(
        (value) => {
          if (loading.givenUp) return value;
          this.#failed.delete(key);
          if (generation === this.#generation && writes === (this.#writes.get(key) ?? 0)) this.#put(key, value);
          return value;
        },
        (err: unknown) => {
          if (!loading.givenUp) this.#noteFailed(key, Date.now());
          throw err;
        },
      )
      .finally(() => {
        if (this.#loading.get(key)?.promise === p) this.#loading.delete(key);
      });
    const loading: Loading<V> = { promise: p, at: Date.now(), givenUp: false };
    this.#loading.set(key, loading);
    return loading;
  }

  /** Notes that the last load of `key` failed at `at` (ms); the oldest such note goes beyond `max + maxMisses`. */
  #noteFailed(key: string, at: number): void {
    this.#failed.delete(key);
    this.#failed.set(key, at);
    const first = this.#failed.keys().next().value;
    if (this.#failed.size > this.#max + this.#maxMisses && first !== undefined) this.#failed.delete(first);
  }

  /** Stores a value known now (e.g. what this isolate just wrote): a load already in flight does not replace it. */
  set(key: string, value: V | null): void {
    this.#writes.set(key, (this.#writes.get(key) ?? 0) + 1);
    this.#put(key, value);
  }

  /** The entry's value as cached (undefined when there is none), without touching its recency. */
  peek(key: string): V | null | undefined {
    return (this.#entries.get(key) ?? this.#misses.get(key))?.value;
  }

  #put(key: string, value: V | null): void {
    this.#entries.delete(key);
    this.#misses.delete(key);
    const [lru, bound] = value === null ? [this.#misses, this.#maxMisses] : [this.#entries, this.#max];
    lru.set(key, { value, at: Date.now() });
    while (lru.size > bound) {
      const oldest = lru.keys().next().value;
      if (oldest === undefined) break;
      lru.delete(oldest);
    }
  }

  /** Drops every entry whose key or value matches (e.g. all entries of a revoked key). */
  deleteWhere(match: (key: string, value: V | null) => boolean): void {
    this.#generation += 1;
    this.#loading.clear();
    for (const lru of [this.#entries, this.#misses]) {
      for (const [k, e] of lru) if (match(k, e.value)) lru.delete(k);
    }
  }

  /** Entries held, values and misses. */
  get size(): number {
    return this.#entries.size + this.#misses.size;
  }
}
