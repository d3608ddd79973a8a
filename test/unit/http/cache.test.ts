// The isolate cache behind keys, tokens' issuing keys, CORS origins and the agent epoch (src/http/directory.ts):
// its bounds are what the README promises about revocation and reconfiguration.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LoadFailedRecently, RefreshCache } from "../../../src/http/cache";

const TIMES = { softMs: 30_000, hardMs: 60_000, negativeMs: 5_000, graceMs: 600_000, retryMs: 5_000, waitMs: 3_000 };

function loader(values: Array<string | null>) {
  let i = 0;
  const fn = vi.fn(async () => values[Math.min(i++, values.length - 1)] ?? null);
  return fn;
}

/** A load of a store that cannot be reached. */
const failing = () => vi.fn(async (): Promise<string | null> => Promise.reject(new Error("D1_ERROR: unreachable")));

/** A load of a store that hangs: it never settles (Workers cancelled the request that owned its I/O). */
const hanging = () => vi.fn((): Promise<string | null> => new Promise(() => {}));

/** What `get` answers, its timers run: a get that waits no time for a load under way is answered then. */
async function answered<T>(get: Promise<T>): Promise<T> {
  await vi.advanceTimersByTimeAsync(0);
  return get;
}

describe("RefreshCache", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("serves a fresh entry without loading again", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const load = loader(["a"]);
    expect(await cache.get("k", load)).toBe("a");
    vi.advanceTimersByTime(29_000);
    expect(await cache.get("k", load)).toBe("a");
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("between the soft and hard age serves the old value and reloads in the background", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const load = loader(["old", "new"]);
    await cache.get("k", load);
    vi.advanceTimersByTime(31_000);
    const background: Promise<unknown>[] = [];
    expect(await cache.get("k", load, (w) => background.push(w))).toBe("old");
    await Promise.all(background);
    expect(await cache.get("k", load)).toBe("new");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("past the hard age waits for the load (a change is seen within 60 s)", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const load = loader(["old", "new"]);
    await cache.get("k", load);
    vi.advanceTimersByTime(60_000);
    expect(await cache.get("k", load)).toBe("new");
  });

  it("keeps a miss only for the negative time", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const load = loader([null, "created"]);
    expect(await cache.get("k", load)).toBeNull();
    vi.advanceTimersByTime(4_000);
    expect(await cache.get("k", load)).toBeNull();
    vi.advanceTimersByTime(1_000);
    expect(await cache.get("k", load)).toBe("created");
  });

  it("shares one load between concurrent misses", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const load = loader(["a"]);
    const [x, y] = await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect([x, y]).toEqual(["a", "a"]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("evicts the least recently used entry beyond its bound", async () => {
    const cache = new RefreshCache<string>(2, TIMES);
    await cache.get("a", loader(["A"]));
    await cache.get("b", loader(["B"]));
    await cache.get("a", loader(["unused"]));
    await cache.get("c", loader(["C"]));
    expect(cache.size).toBe(2);
    const keepA = loader(["unused"]);
    expect(await cache.get("a", keepA)).toBe("A");
    expect(keepA).not.toHaveBeenCalled();
    const reloadB = loader(["B2"]);
    expect(await cache.get("b", reloadB)).toBe("B2");
  });

  it("misses beyond their own bound evict other misses, never a value", async () => {
    const cache = new RefreshCache<string>(2, TIMES, 2);
    await cache.get("known", loader(["K"]));
    for (const bogus of ["x1", "x2", "x3", "x4"]) await cache.get(bogus, loader([null]));
    const keepKnown = loader(["unused"]);
    expect(await cache.get("known", keepKnown)).toBe("K");
    expect(keepKnown).not.toHaveBeenCalled();
    expect(cache.size).toBe(3);
  });

  it("after deleteWhere, a load that started before it does not store its stale value", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    let release: (v: string) => void = () => {};
    const slow = vi.fn(() => new Promise<string | null>((r) => (release = r)));
    const pending = cache.get("k", slow);
    cache.deleteWhere((k) => k === "k");
    release("revoked-but-read-before");
    expect(await pending).toBe("revoked-but-read-before");
    const fresh = loader(["after"]);
    expect(await cache.get("k", fresh)).toBe("after");
  });

  it("a value set while a load of its key is in flight is not replaced by what that load read", async () => {
    const cache = new RefreshCache<number>(10, TIMES);
    let release: (v: number) => void = () => {};
    const slow = vi.fn(() => new Promise<number | null>((r) => (release = r)));
    const pending = cache.get("epoch", slow);
    // This isolate just wrote a newer value (an agent PUT): the load read the older one before the write.
    cache.set("epoch", 8);
    release(7);
    expect(await pending).toBe(7);
    expect(
      await cache.get(
        "epoch",
        vi.fn(async () => 0),
      ),
    ).toBe(8);
  });

  it("past the hard age, a reload that fails serves the entry still, within the grace", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["cached"]));
    vi.advanceTimersByTime(60_000 + 599_000);
    const load = failing();
    expect(await cache.get("k", load)).toBe("cached");
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("past the grace, a load that fails throws", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["cached"]));
    vi.advanceTimersByTime(60_000 + 600_000);
    await expect(cache.get("k", failing())).rejects.toThrow("D1_ERROR");
  });

  it("within the grace, a reload that answers not found replaces the entry (a revocation is seen once D1 answers)", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["live"]));
    vi.advanceTimersByTime(60_000);
    await expect(cache.get("k", failing())).resolves.toBe("live");
    vi.advanceTimersByTime(5_000);
    expect(await cache.get("k", loader([null]))).toBeNull();
  });

  it("a failed refresh-ahead is not started again until retryMs has passed", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["cached"]));
    vi.advanceTimersByTime(31_000);
    const load = failing();
    for (let i = 0; i < 3; i++) {
      const background: Promise<unknown>[] = [];
      expect(await cache.get("k", load, (w) => background.push(w))).toBe("cached");
      await Promise.all(background);
    }
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    const background: Promise<unknown>[] = [];
    await cache.get("k", load, (w) => background.push(w));
    await Promise.all(background);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("within retryMs of a failed load, an entry past its hard age is served without loading", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["cached"]));
    vi.advanceTimersByTime(60_000);
    const load = failing();
    await cache.get("k", load);
    expect(await cache.get("k", load)).toBe("cached");
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("a key with no entry whose load failed throws LoadFailedRecently, without loading, until retryMs has passed", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await expect(cache.get("k", failing())).rejects.toThrow("D1_ERROR");
    const load = loader(["back"]);
    await expect(cache.get("k", load)).rejects.toBeInstanceOf(LoadFailedRecently);
    expect(load).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5_000);
    expect(await cache.get("k", load)).toBe("back");
  });

  it("an entry dropped by deleteWhere while its reload was failing is not served", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["revoked-here"]));
    vi.advanceTimersByTime(60_000);
    let fail: (e: Error) => void = () => {};
    const pending = cache.get(
      "k",
      vi.fn(() => new Promise<string | null>((_resolve, reject) => (fail = reject))),
    );
    cache.deleteWhere((k) => k === "k");
    fail(new Error("D1_ERROR: unreachable"));
    await expect(pending).rejects.toThrow("D1_ERROR");
  });

  it("an entry whose reload never settles is reloaded once that reload has run waitMs + retryMs (a revocation is seen once D1 answers)", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    await cache.get("k", loader(["live"]));
    vi.advanceTimersByTime(60_000);
    const pending = cache.get("k", hanging());
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await pending).toBe("live");
    vi.advanceTimersByTime(5_000);
    expect(await answered(cache.get("k", loader([null])))).toBeNull();
  });

  it("only the get that started a load hands it to background when the wait for it ends", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    const background: Promise<unknown>[] = [];
    const load = hanging();
    const gets = [0, 1].map(() => cache.get("k", load, (w) => background.push(w)).catch((e: Error) => e.name));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await Promise.all(gets)).toEqual(["LoadTooSlow", "LoadTooSlow"]);
    expect([load.mock.calls.length, background.length]).toEqual([1, 1]);
  });

  it("starts no load past maxLoads under way: a key with no entry is refused without loading (a flood of made-up keys on a hung store)", async () => {
    const cache = new RefreshCache<string>(10, TIMES, 10, 3);
    const gets = ["a", "b", "c"].map((k) => cache.get(k, hanging()).catch((e: Error) => e.name));
    const extra = vi.fn(async () => "d");
    await expect(cache.get("d", extra)).rejects.toThrow("too many loads");
    expect(extra).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await Promise.all(gets)).toEqual(["LoadTooSlow", "LoadTooSlow", "LoadTooSlow"]);
  });

  it("drops loads past their life when another starts, whatever their keys, so a hung store's loads do not pile up for good", async () => {
    const cache = new RefreshCache<string>(10, TIMES, 10, 3);
    const gets = ["a", "b", "c"].map((k) => cache.get(k, hanging()).catch(() => undefined));
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(gets);
    vi.advanceTimersByTime(5_000);
    expect(await cache.get("d", loader(["d"]))).toBe("d");
  });

  it("serves an entry within grace when maxLoads loads are under way (its reload is not started)", async () => {
    const cache = new RefreshCache<string>(10, TIMES, 10, 1);
    await cache.get("k", loader(["live"]));
    vi.advanceTimersByTime(60_000);
    const other = cache.get("other", hanging()).catch(() => undefined);
    const reload = vi.fn(async () => "new");
    expect(await cache.get("k", reload)).toBe("live");
    expect(reload).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(3_000);
    await other;
  });

  it("a load given up on and answering after a newer load stores nothing over the newer value", async () => {
    const cache = new RefreshCache<string>(10, TIMES);
    let release: (v: string) => void = () => {};
    const pending = cache.get(
      "k",
      vi.fn(() => new Promise<string | null>((r) => (release = r))),
    );
    const gaveUp = expect(pending).rejects.toThrow("has not answered yet");
    await vi.advanceTimersByTimeAsync(3_000);
    await gaveUp;
    vi.advanceTimersByTime(5_000);
    expect(await answered(cache.get("k", loader(["newer"])))).toBe("newer");
    release("older");
    await vi.advanceTimersByTimeAsync(0);
    expect(await cache.get("k", loader(["unused"]))).toBe("newer");
  });
});
