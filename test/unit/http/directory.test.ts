// The worker's control-plane reads (src/http/directory.ts) as the debug D1 figure sees them: README "Debug counters"
// says work left to waitUntil after the answer is not in a request's x-debug-d1-statements.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  agentArg,
  forgetKey,
  forgetOrigins,
  keyByHash,
  originAllowed,
  webhookSecrets,
} from "../../../src/http/directory";
import { countedD1, Probe } from "../../../src/storage/debug-counters";

type Key = { id: string; tenant: string; rate_limit_per_min: number | null } | null;
/** A cors_origins row as originListed reads it: present (the origin is listed) or not. */
const LISTED = { x: 1 } as unknown as Key;
/** An agent's row as readWebhookSecrets reads it: its webhook_secrets. */
const SECRETS = { secrets: '["whsec_a"]' } as unknown as Key;

/**
 * A D1 whose every lookup (a key, a cors_origins row) answers `key` (its read replica `replica`, when given: one that
 * lags).
 */
function fakeDb(key: Key, replica: Key = key): D1Database {
  const answering = (answer: Key) => {
    const statement = { bind: () => statement, first: async () => answer };
    return { prepare: () => statement };
  };
  return { ...answering(key), withSession: () => answering(replica) } as unknown as D1Database;
}

/** A D1 that cannot be reached: every statement fails, on the primary and on a replica. */
function unreachableDb(): D1Database {
  const statement = { bind: () => statement, first: async () => Promise.reject(new Error("D1_ERROR: unreachable")) };
  const db = { prepare: () => statement };
  return { ...db, withSession: () => db } as unknown as D1Database;
}

/** A request's context as directory.ts uses it: its counted D1 and its waitUntil. */
function request(db: D1Database) {
  const probe = new Probe(0);
  const later: Promise<unknown>[] = [];
  const c = {
    env: { DB: countedD1(db, probe) },
    executionCtx: { waitUntil: (p: Promise<unknown>) => later.push(p) },
  };
  return { c: c as unknown as Parameters<typeof keyByHash>[0], probe, later };
}

describe("directory reads in the debug D1 figure", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a key's refresh-ahead load, left to waitUntil, is not counted in the request that started it", async () => {
    const db = fakeDb({ id: "key_dir_a", tenant: "t", rate_limit_per_min: null });
    await keyByHash(request(db).c, "hash_dir_a");
    vi.advanceTimersByTime(31_000);
    const second = request(db);
    expect(await keyByHash(second.c, "hash_dir_a")).toMatchObject({ id: "key_dir_a" });
    await Promise.all(second.later);
    expect(second.later).toHaveLength(1);
    expect(second.probe.mark().d1_statements).toBe(0);
  });
});

describe("a key revoked in this isolate", () => {
  it("is not brought back by a read replica that has not seen the revocation yet", async () => {
    const live = { id: "key_dir_revoked", tenant: "t", rate_limit_per_min: null };
    forgetKey("key_dir_revoked");
    // The primary has the revocation; the replica still answers the key live.
    expect(await keyByHash(request(fakeDb(null, live)).c, "hash_dir_revoked")).toBeNull();
  });
});

describe("a CORS list replaced in this isolate", () => {
  it("drops a removed origin at once although a read replica still lists it", async () => {
    const [tenant, origin] = ["t_cors_removed", "https://removed.example"];
    expect(await originAllowed(request(fakeDb(LISTED)).c, tenant, origin)).toBe(true);
    // The primary has the new list without the origin; the replica still lists it.
    forgetOrigins(tenant);
    expect(await originAllowed(request(fakeDb(null, LISTED)).c, tenant, origin)).toBe(false);
  });

  it("drops a removed origin from preflights at once although a read replica still lists it", async () => {
    const [tenant, origin] = ["t_cors_preflight", "https://preflight-removed.example"];
    expect(await originAllowed(request(fakeDb(LISTED)).c, null, origin)).toBe(true);
    forgetOrigins(tenant);
    expect(await originAllowed(request(fakeDb(null, LISTED)).c, null, origin)).toBe(false);
  });
});

describe("an agent's webhook secrets, for a signature check", () => {
  it("cost a missing agent the one statement they cost an agent that exists", async () => {
    const [found, missing] = [request(fakeDb(SECRETS)), request(fakeDb(null))];
    expect(await webhookSecrets(found.c, "agent_dir_found")).toEqual(["whsec_a"]);
    expect(await webhookSecrets(missing.c, "agent_dir_missing")).toEqual([]);
    expect([found.probe.mark().d1_statements, missing.probe.mark().d1_statements]).toEqual([1, 1]);
  });
});

describe("D1 that cannot be read", () => {
  it("with no agent epoch known yet, a turn carries no changes instead of failing", async () => {
    expect(await agentArg(request(unreachableDb()).c)).toEqual({ epoch: 0, since: 0, changed: [] });
  });

  it("keys whose loads keep failing are logged once, and again once a load has answered in between", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const logged = () => errors.mock.calls.filter(([line]) => String(line).includes('"directory_unavailable"')).length;
    try {
      for (const hash of ["hash_dir_down_a", "hash_dir_down_b"]) {
        await expect(keyByHash(request(unreachableDb()).c, hash)).rejects.toMatchObject({
          status: 503,
          code: "directory_unavailable",
        });
      }
      expect(logged()).toBe(1);
      const live = { id: "key_dir_back", tenant: "t", rate_limit_per_min: null };
      expect(await keyByHash(request(fakeDb(live)).c, "hash_dir_back")).toMatchObject({ id: "key_dir_back" });
      await expect(keyByHash(request(unreachableDb()).c, "hash_dir_down_c")).rejects.toThrow();
      expect(logged()).toBe(2);
    } finally {
      errors.mockRestore();
    }
  });
});
