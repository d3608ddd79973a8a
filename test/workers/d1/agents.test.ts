/**
 * What the agent-config epoch and its changes (src/d1/agents.ts) tell the sessions: a change of another agent costs a
 * session no D1 read however long no agent changed before it, and an epoch move no version explains (a change written
 * by code from before versions: between applying the migrations and the deploy, a gradual rollout, a rollback; or a
 * DELETE before migration 0010) makes every copy older than it re-read once, so such a change reaches its sessions
 * (README "The turn path"). These tests write agent_epoch and agent_versions as that code and the migrations do: the
 * file has a D1 of its own (no other file sees it), and its tests run one after another.
 */
import { applyD1Migrations, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, mockRequests, putAgentOf, type Setup, script, sendMessage, setup, uid } from "../helpers";

const D1 = "x-debug-d1-statements";

/** The epoch bump of the code from before versions (the bump it shares with the code of now). */
const OLD_BUMP = `UPDATE agent_epoch SET epoch = MAX(epoch + 1, CAST(unixepoch('subsec') * 1000 AS INTEGER)) WHERE id = 1`;

/** What a PUT of the code from before versions writes: the new config and the epoch bump, no version. */
async function oldCodePut(name: string, system: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("UPDATE agents SET config = json_set(config, '$.system', ?) WHERE name = ?").bind(system, name),
    env.DB.prepare(OLD_BUMP),
  ]);
}

/** What a DELETE of the code from before versions writes: the epoch bump and the agent gone, its version untouched. */
async function oldCodeDelete(name: string): Promise<void> {
  await env.DB.batch([env.DB.prepare(OLD_BUMP), env.DB.prepare("DELETE FROM agents WHERE name = ?").bind(name)]);
}

/** The system prompts the session's turns sent, in order. */
async function systems(s: Setup): Promise<string[]> {
  return (await mockRequests(s.model)).map((r) => JSON.stringify(r.body.system));
}

describe("a change of another agent after a long time with none", () => {
  it("costs the next turn of a session whose copy is current no D1 statement", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "warm");
    const other = uid("other");
    expect((await putAgentOf(s, other, "Another agent.")).status).toBe(201);
    // That PUT made two hours after the change before it: its epoch (the clock in ms) and its version two hours on.
    await env.DB.batch([
      env.DB.prepare("UPDATE agent_epoch SET epoch = epoch + 7200000 WHERE id = 1"),
      env.DB.prepare(
        "UPDATE agent_versions SET version = (SELECT epoch FROM agent_epoch WHERE id = 1) WHERE name = ?",
      ).bind(other),
    ]);
    // A PUT of the config stored writes nothing, and hands this isolate the changes as they now are.
    expect((await putAgentOf(s, other, "Another agent.")).status).toBe(200);
    const next = await sendMessage(s, "after");
    expect(next.status).toBe(200);
    expect(next.headers.get(D1)).toBe("0");
  });
});

describe("an agent change written without a version", () => {
  it("a PUT followed by a change of another agent reaches the session's next turn", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "before");
    await oldCodePut(s.agent, "You are the reconfigured agent.");
    expect((await putAgentOf(s, uid("later"), "Another agent.")).status).toBe(201);
    expect((await sendMessage(s, "after")).status).toBe(200);
    expect((await systems(s))[1]).toContain("You are the reconfigured agent.");
  });

  it("a PUT with no change after it reaches the session's next turn", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "before");
    await oldCodePut(s.agent, "You are the reconfigured agent.");
    // A PUT of the config stored writes nothing, and hands this isolate the epoch as the old code left it.
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    expect((await sendMessage(s, "after")).status).toBe(200);
    expect((await systems(s))[1]).toContain("You are the reconfigured agent.");
  });

  it("a DELETE followed by a change of another agent refuses the session's next turn with 409 agent_missing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await sendMessage(s, "before");
    await oldCodeDelete(s.agent);
    expect((await putAgentOf(s, uid("later"), "Another agent.")).status).toBe(201);
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "after" },
    });
    expect([res.status, res.body.error?.code]).toEqual([409, "agent_missing"]);
  });

  it("a DELETE before migration 0010, with 0010 and 0011 applied after it, refuses the next turn with 409", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    const other = uid("other");
    expect((await putAgentOf(s, other, "Another agent.")).status).toBe(201);
    await sendMessage(s, "before");
    // Back to before 0010: no versions, no floor. Then the old code deletes the agent, and the migrations run.
    await env.DB.batch([
      env.DB.prepare("DROP TABLE agent_versions"),
      env.DB.prepare("ALTER TABLE agent_epoch DROP COLUMN floor"),
      env.DB.prepare(
        "DELETE FROM d1_migrations WHERE name IN ('0010_agent_versions.sql', '0011_agent_epoch_floor.sql')",
      ),
    ]);
    await oldCodeDelete(s.agent);
    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
    // A PUT of the config stored writes nothing, and hands this isolate the epoch as the migrations left it.
    expect((await putAgentOf(s, other, "Another agent.")).status).toBe(200);
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "after" },
    });
    expect([res.status, res.body.error?.code]).toEqual([409, "agent_missing"]);
  });
});
