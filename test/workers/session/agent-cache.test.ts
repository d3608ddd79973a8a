/**
 * Which agent changes make a session object re-read its agent (src/session/agent-cache.ts): only a change of its own
 * agent, told by the worker's news of recent changes (README "The turn path"); a PUT of another agent, or a PUT
 * that stores what is already stored, costs the session's next turn no D1 statement.
 * Counts come from the debug counters (SWITCHBOARD_DEBUG_CHECKS is on in this suite).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../../src/agents/types";
import { MAX_CHANGES } from "../../../src/d1/agents";
import { AgentCache, type TurnMark } from "../../../src/session/agent-cache";
import { mockRequests, putAgentOf, script, sendMessage, sessionStub, setup, uid } from "../helpers";

const D1 = "x-debug-d1-statements";

describe("a session re-reads its agent only when that agent changed", () => {
  it("a PUT of another agent leaves the session's next turn without a D1 statement", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "warm");
    expect((await putAgentOf(s, uid("unrelated"), "Another agent.")).status).toBe(201);
    const next = await sendMessage(s, "after");
    expect(next.status).toBe(200);
    expect(next.headers.get(D1)).toBe("0");
  });

  it("a PUT that stores the session's agent as it already is leaves its next turn without a D1 statement", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "warm");
    expect((await putAgentOf(s, s.agent, "You are a test agent.")).status).toBe(200);
    const next = await sendMessage(s, "after");
    expect(next.status).toBe(200);
    expect(next.headers.get(D1)).toBe("0");
  });

  it("a change of the session's agent followed by a change of another still reaches the session's next turn", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "before");
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    expect((await putAgentOf(s, uid("later"), "Another agent.")).status).toBe(201);
    expect((await sendMessage(s, "after")).status).toBe(200);
    const systems = (await mockRequests(s.model)).map((r) => JSON.stringify(r.body.system));
    expect(systems[0]).toContain("You are a test agent.");
    expect(systems[1]).toContain("You are the reconfigured agent.");
  });

  it("a change of the session's agent followed by changes of more agents than the worker lists still reaches it", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "before");
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    for (let i = 0; i <= MAX_CHANGES; i += 1) {
      expect((await putAgentOf(s, uid(`burst${i}`), "Another agent.")).status).toBe(201);
    }
    expect((await sendMessage(s, "after")).status).toBe(200);
    const systems = (await mockRequests(s.model)).map((r) => JSON.stringify(r.body.system));
    expect(systems[1]).toContain("You are the reconfigured agent.");
  });
});

/** A D1 whose every agent read answers `config` at epoch `epoch`, counting the reads. */
function countingDb(config: AgentConfig, epoch: number): { db: D1Database; reads: () => number } {
  let reads = 0;
  const first = async () => {
    reads += 1;
    return { epoch, config: JSON.stringify(config), changed: "[]" };
  };
  return { db: { prepare: () => ({ bind: () => ({ first }) }) } as unknown as D1Database, reads: () => reads };
}

describe("news that does not reach back to the session's copy", () => {
  const copy = { model: { provider: "anthropic", name: "m" }, system: "copy" } as AgentConfig;
  const changed = { ...copy, system: "changed" } as AgentConfig;

  it("a copy older than the changes the worker lists is read again, though its agent is not among them", async () => {
    const s = await setup();
    const { system, reads } = await runInDurableObject(await sessionStub(s), async (_i, state) => {
      const idle: TurnMark = { open: null, id: null };
      const d1 = countingDb(changed, 300);
      const cache = new AgentCache(
        () => state.storage.sql,
        () => d1.db,
        () => idle,
      );
      cache.prime(s.agent, copy, 100);
      // The worker lists every change above 200: what changed between 100 and 200 is not told.
      const answer = await cache.resolve(s.agent, { epoch: 300, since: 200, changed: [["another", 250]] }, true);
      return { system: answer.ok ? answer.agent.system : answer.error.code, reads: d1.reads() };
    });
    expect({ system, reads }).toEqual({ system: "changed", reads: 1 });
  });
});
