// The isolate cache behind keys, tokens' issuing keys, CORS origins and the agent epoch (src/http/directory.ts):
// its bounds are what the README promises about revocation and reconfiguration.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RefreshCache } from "../../../src/http/cache";

const TIMES = { softMs: 30_000, hardMs: 60_000, negativeMs: 5_000 };

function loader(values: Array<string | null>) {
  let i = 0;
  const fn = vi.fn(async () => values[Math.min(i++, values.length - 1)] ?? null);
  return fn;
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
});
