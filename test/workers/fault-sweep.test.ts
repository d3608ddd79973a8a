/**
 * DESIGN §9 fault sweep: a recorded stream with thinking, text and two
 * tool_use blocks is cut at every byte offset. After each cut the session
 * must continue (retry, then a new message) without the strict mock ever
 * rejecting a request, without duplicate tool_results and without losing a
 * user message. Drives the session object over RPC (the HTTP layer has its
 * own tests) so that every offset fits in the suite's time budget.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../src/agents/normalize";
import type { AgentConfig } from "../../src/agents/types";
import type { SessionRpc } from "../../src/http/session-ref";
import type { TurnAnswer } from "../../src/session/rpc-types";
import type { Session } from "../../src/session/session";
import { clientTool, type Msg, pairingProblems, recordStream, script, uid } from "./helpers";

const REPLY = {
  thinking: "Two lookups.",
  text: "Checking.",
  tool_calls: [
    { id: "toolu_sweep_a", name: "lookup_a", input: { q: "a" } },
    { id: "toolu_sweep_b", name: "lookup_b", input: { q: "b", n: [1] } },
  ],
};
const OPENAI_REPLY = { ...REPLY, tool_calls: REPLY.tool_calls.map((c, i) => ({ ...c, id: `call_sweep_${i}` })) };
const LANES = 4;

interface Counts {
  offsets: number;
  rejected_p: number;
  rejected_other: number;
  duplicate_tool_results: number;
  user_messages_lost: number;
  pairing_problems: number;
  invariant_checks_failed: number;
  outcomes: Record<string, number>;
}

/** The object's turn methods, called here over JS RPC (the worker reaches them through its fetch). */
type SweepStub = SessionRpc & Pick<Session, "sendMessage" | "retry">;

function result(a: Awaited<ReturnType<SweepStub["sendMessage"]>>): NonNullable<TurnAnswer["result"]> {
  if (!a.ok || !a.result) throw new Error(`rpc failed: ${JSON.stringify(a)}`);
  return a.result;
}

async function lane(protocol: "anthropic" | "openai", body: string, offsets: number[], counts: Counts): Promise<void> {
  const model = uid(`sweep-${protocol}`);
  const agent: AgentConfig = normalizeAgent(uid("agent"), {
    model: { provider: protocol, name: model },
    tools: [clientTool("lookup_a"), clientTool("lookup_b")],
  });
  const tenant = uid("sweep");
  const id = uid("ses");
  const stub = env.SESSION.getByName(`${tenant}:${id}`) as unknown as SweepStub;
  await stub.init({ tenant, id, agent: agent.name, created_at: new Date().toISOString(), metadata: null });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }], tool_results: [] });
  for (const n of offsets) {
    await script(model, [
      // Every tenth offset ends the connection with a reset, the others with an early clean EOF: both are
      // cuts to the adapter (its unit tests cut every byte both ways). Each reset makes workerd log an
      // exception, so resets everywhere would bury the suite's output.
      { raw: body, faults: { cut_after_bytes: n, cut_grace_ms: 1, cut_mode: n % 10 === 0 ? "reset" : "eof" } },
      { reply: { text: "Retried." } },
      { reply: { text: "New answer." } },
    ]);
    const first = result(await stub.sendMessage(agent, text(`question at offset ${n}`), "json"));
    counts.outcomes[first.status] = (counts.outcomes[first.status] ?? 0) + 1;
    const seen = [first];
    if (first.status !== "completed") {
      const retry = result(await stub.retry(agent, "json"));
      expect(retry.status, `retry after cut at ${n}`).toBe("completed");
      seen.push(retry);
    }
    const next = result(await stub.sendMessage(agent, text(`follow-up at offset ${n}`), "json"));
    expect(next.status, `new message after cut at ${n}`).toBe("completed");
    seen.push(next);
    counts.invariant_checks_failed += seen.filter((r) => r.error?.code === "invariant_violation").length;

    const page = await stub.messages(0, 1000);
    if (!page.ok) throw new Error("messages failed");
    const msgs = page.messages as unknown as Msg[];
    counts.pairing_problems += pairingProblems(msgs).length;
    const results = msgs
      .flatMap((m) => m.parts)
      .filter((p) => p.type === "tool_result")
      .map((p) => p.tool_use_id);
    counts.duplicate_tool_results += results.length - new Set(results).size;
    const userTexts = msgs.flatMap((m) => (m.role === "user" ? m.parts : [])).map((p) => p.text);
    if (!userTexts.includes(`question at offset ${n}`)) counts.user_messages_lost += 1;
    if (!userTexts.includes(`follow-up at offset ${n}`)) counts.user_messages_lost += 1;
    const cleared = await stub.clear();
    expect(cleared.ok).toBe(true);
    counts.offsets += 1;
  }
  const stats = (await (await fetch(`${env.MOCK_URL}/_mock/stats?model=${model}`)).json()) as {
    model: { requests: number; rejected: number; rejected_p: number; queued: number };
  };
  counts.rejected_p += stats.model.rejected_p;
  counts.rejected_other += stats.model.rejected - stats.model.rejected_p;
  expect(stats.model.queued).toBe(0);
}

async function sweep(protocol: "anthropic" | "openai"): Promise<{ counts: Counts; size: number }> {
  const body = await recordStream(protocol, protocol === "anthropic" ? REPLY : OPENAI_REPLY);
  const size = new TextEncoder().encode(body).byteLength;
  const counts: Counts = {
    offsets: 0,
    rejected_p: 0,
    rejected_other: 0,
    duplicate_tool_results: 0,
    user_messages_lost: 0,
    pairing_problems: 0,
    invariant_checks_failed: 0,
    outcomes: {},
  };
  const offsets = Array.from({ length: size + 1 }, (_, i) => i);
  await Promise.all(
    Array.from({ length: LANES }, (_, l) =>
      lane(
        protocol,
        body,
        offsets.filter((n) => n % LANES === l),
        counts,
      ),
    ),
  );
  console.warn(`fault sweep ${protocol}: stream of ${size} bytes cut at every offset: ${JSON.stringify(counts)}`);
  return { counts, size };
}

describe("fault sweep: cut at every byte offset", () => {
  for (const protocol of ["anthropic", "openai"] as const) {
    it(`${protocol}: zero P rejections, zero duplicate results, zero lost user messages`, {
      timeout: 600_000,
    }, async () => {
      const { counts, size } = await sweep(protocol);
      expect(counts.offsets).toBe(size + 1);
      expect(counts.rejected_p).toBe(0);
      expect(counts.rejected_other).toBe(0);
      expect(counts.duplicate_tool_results).toBe(0);
      expect(counts.user_messages_lost).toBe(0);
      expect(counts.pairing_problems).toBe(0);
      expect(counts.invariant_checks_failed).toBe(0);
    });
  }
});
