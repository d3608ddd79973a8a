/**
 * The turn calls' agent config (src/session/turn-calls.ts): a newer config read while a turn is paused becomes the
 * session's copy only once the call ended that pause, so a reconfigured agent takes effect at a turn boundary, never
 * mid-turn (README "The turn path"); a message repeated with its Idempotency-Key is answered before the agent is
 * resolved, so its turn is replayed whatever became of the agent since.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../../../src/mcp/connection";
import {
  ADMIN,
  apiJson,
  clientTool,
  mockRequests,
  patch,
  putAgentOf,
  restorePatches,
  type Setup,
  script,
  setup,
  type TurnJson,
} from "../helpers";

afterEach(restorePatches);

const OLD = "You are a test agent.";
const NEW = "You are the reconfigured agent.";

/** PUTs the session's agent with `system`, the client tool ask_user and `extra` (an MCP server, say). */
function putAgent(s: Setup, system: string, extra: Record<string, unknown> = {}) {
  return apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: s.model }, system, tools: [clientTool("ask_user")], ...extra },
  });
}

/**
 * MCP listings that wait until `release` (every connection of the session object: same isolate); `listing`
 * resolves once the first one has begun.
 */
function heldListing(): { listing: Promise<void>; release: () => void } {
  let begun = () => {};
  let release = () => {};
  const listing = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  patch(McpConnection.prototype, "list", async () => {
    begun();
    await gate;
    return { tools: [], truncated: false };
  });
  return { listing, release };
}

/** The result for client call `id`, which resumes the session's paused turn. */
function answer(s: Setup, id: string) {
  return apiJson<TurnJson>(`/v1/sessions/${s.session}/tool-results`, {
    method: "POST",
    key: s.key,
    json: { results: [{ tool_use_id: id, content: "the blue one" }] },
  });
}

/** Each provider request's system prompt and tool names, in order. */
async function requests(s: Setup): Promise<Array<{ system: string; tools: string[] }>> {
  return (await mockRequests(s.model)).map((r) => ({
    system: JSON.stringify(r.body.system),
    tools: ((r.body.tools as Array<{ name: string }> | undefined) ?? []).map((t) => t.name),
  }));
}

describe("a newer agent config read while a turn is paused", () => {
  it("is not taken by a replayed message: the paused turn resumes with the config it was admitted with", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_replayed", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "resumed" } },
    ]);
    const message = {
      method: "POST",
      key: s.key,
      json: { content: "ask me" },
      headers: { "idempotency-key": "k-paused" },
    };
    const paused = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, message);
    expect(paused.body.status).toBe("awaiting_tool_results");
    expect((await putAgentOf(s, s.agent, NEW)).status).toBe(200);
    // The same message again (a client's retry after a lost answer): an admission that admits nothing, answered
    // with the paused turn, which it leaves paused.
    const replay = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, message);
    expect([replay.status, replay.body.turn_id, replay.body.status]).toEqual([
      200,
      paused.body.turn_id,
      "awaiting_tool_results",
    ]);
    expect((await answer(s, "toolu_replayed")).body.status).toBe("completed");
    const resumed = (await requests(s))[1];
    expect(resumed?.system).toContain(OLD);
    expect(resumed?.tools).toContain("ask_user");
  });

  it("is taken by a message that ends the pause: the turn it admits resumes with it after a pause of its own", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_first", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { tool_calls: [{ id: "toolu_second", name: "ask_user", input: { q: "and now?" } }] } },
      { reply: { text: "resumed" } },
    ]);
    const first = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "ask me" },
    });
    expect(first.body.status).toBe("awaiting_tool_results");
    // The new agent keeps the client tool, so the turn it admits can pause on it too.
    expect((await putAgent(s, NEW)).status).toBe(200);
    // A new message ends the first pause (its open call closed) and admits a turn with the new config.
    const second = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "something else" },
    });
    expect(second.body.status).toBe("awaiting_tool_results");
    expect((await answer(s, "toolu_second")).body.status).toBe("completed");
    const systems = (await requests(s)).map((r) => r.system);
    expect(systems[1]).toContain(NEW);
    expect(systems[2]).toContain(NEW);
  });

  it("is not read by a replay, answered before the agent's MCP servers are listed: a later turn runs with the newest", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_overtaken", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { tool_calls: [{ id: "toolu_overtaking", name: "ask_user", input: { q: "and now?" } }] } },
      { reply: { text: "resumed" } },
    ]);
    const message = { method: "POST", key: s.key, json: { content: "ask me" }, headers: { "idempotency-key": "k-o" } };
    expect((await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, message)).body.status).toBe(
      "awaiting_tool_results",
    );
    // A first change adds an MCP server, whose first listing a call that resolves the agent would wait for (held).
    const held = heldListing();
    let listed = false;
    void held.listing.then(() => {
      listed = true;
    });
    expect(
      (await putAgent(s, "The first change.", { mcp_servers: [{ name: "m", url: "https://mcp.example.com/mcp" }] }))
        .status,
    ).toBe(200);
    // The replay is the paused turn, answered without resolving the agent: nothing is listed, nothing read or kept.
    const replay = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, message);
    expect([replay.status, replay.body.status, listed]).toEqual([200, "awaiting_tool_results", false]);
    held.release();
    // A second change, and a message that ends the pause with it: its turn pauses on a call of its own.
    expect((await putAgent(s, NEW)).status).toBe(200);
    const overtaking = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "something else" },
    });
    expect(overtaking.body.status).toBe("awaiting_tool_results");
    expect((await answer(s, "toolu_overtaking")).body.status).toBe("completed");
    const systems = (await requests(s)).map((r) => r.system);
    expect(systems[1]).toContain(NEW);
    expect(systems[2]).toContain(NEW);
  });
});

describe("a message repeated with its Idempotency-Key", () => {
  it("is the same turn (200) after its agent was deleted, not refused 409 agent_missing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Once." } }]);
    const init = { method: "POST", key: s.key, json: { content: "hello" }, headers: { "idempotency-key": "k-gone" } };
    const first = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, init);
    expect(first.status).toBe(201);
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    const again = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, init);
    expect([again.status, again.body.turn_id]).toEqual([200, first.body.turn_id]);
  });
});
