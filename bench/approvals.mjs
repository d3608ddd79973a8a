// Bench — what a human approval costs the service (never asserted; prints figures).
//
// The same scripted turn (one http tool call, then a text reply) on two agents: one whose tool needs
// approval, one whose tool does not. Approval turns are timed in two requests — POST /messages until the
// turn pauses (`awaiting_approval`), then POST /tool-approvals until it completes — and compared with the
// plain turn. The person's thinking time is not in the figures: the answer is sent as soon as the pause
// is seen. Also reports the size of the approval row the pause stores (GET /v1/sessions/{id}).
import { newSession, pct, performance, round, standalone, table } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_APPROVAL_ROUNDS ?? 30);

function agentBody(model, url, approval) {
  return {
    model: { provider: "anthropic", name: model },
    system: "You are a benchmark agent.",
    tools: [
      {
        name: "charge_card",
        description: "Charges the card.",
        input_schema: { type: "object", properties: { amount: { type: "number" } } },
        execution: { type: "http", url },
        ...(approval ? { requires_approval: true } : {}),
      },
    ],
  };
}

const SCRIPT = [
  { reply: { tool_calls: [{ name: "charge_card", input: { amount: 42 } }] } },
  { reply: { text: "Charged." } },
];

export async function run(env) {
  const suffix = Math.random().toString(36).slice(2, 8);
  const plainModel = `bench-approval-plain-${suffix}`;
  const gatedModel = `bench-approval-gated-${suffix}`;
  const toolUrl = `${env.mockUrl}/_tool`;
  await env.api.putAgent(plainModel, agentBody(plainModel, toolUrl, false));
  await env.api.putAgent(gatedModel, agentBody(gatedModel, toolUrl, true));

  const plain = [];
  const pause = [];
  const answer = [];
  let rowBytes = null;
  for (let i = 0; i < ROUNDS; i++) {
    const s1 = await newSession(env, plainModel);
    await env.mock.script(plainModel, SCRIPT);
    let t0 = performance.now();
    const done = await env.api.sendJson(env.key, s1, { content: "charge 42" });
    plain.push(performance.now() - t0);
    if (done.status !== "completed") throw new Error(`plain turn ${done.status}`);

    const s2 = await newSession(env, gatedModel);
    await env.mock.script(gatedModel, SCRIPT);
    t0 = performance.now();
    const paused = await env.api.sendJson(env.key, s2, { content: "charge 42" });
    pause.push(performance.now() - t0);
    if (paused.status !== "awaiting_approval") throw new Error(`gated turn ${paused.status}`);
    const open = paused.pending_approvals[0];
    rowBytes ??= JSON.stringify(open).length;
    t0 = performance.now();
    const res = await env.api.json("POST", `/v1/sessions/${s2}/tool-approvals`, {
      key: env.key,
      body: { approvals: [{ approval_id: open.approval_id, approved: true }] },
    });
    answer.push(performance.now() - t0);
    if (res.body.status !== "completed") throw new Error(`approved turn ${res.status} ${res.text}`);
  }

  const total = pause.map((p, i) => p + answer[i]);
  const row = (name, xs) => [name, round(pct(xs, 50)), round(pct(xs, 90)), round(pct(xs, 99))];
  table(
    `Human approval: service time per turn, ${ROUNDS} rounds (ms; the person's time excluded)`,
    ["path", "p50", "p90", "p99"],
    [
      row("plain turn (no approval)", plain),
      row("approval: POST /messages → paused", pause),
      row("approval: POST /tool-approvals → completed", answer),
      row("approval: both requests", total),
    ],
  );
  const overhead = round(pct(total, 50) - pct(plain, 50));
  console.log(`   p50 overhead of the pause: ${overhead} ms; open approval as listed: ${rowBytes} bytes of JSON`);
  return {
    rounds: ROUNDS,
    plain_p50_ms: round(pct(plain, 50)),
    pause_p50_ms: round(pct(pause, 50)),
    answer_p50_ms: round(pct(answer, 50)),
    total_p50_ms: round(pct(total, 50)),
    overhead_p50_ms: overhead,
    approval_json_bytes: rowBytes,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("approvals", run);
