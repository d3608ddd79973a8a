// Bench — what workerd's memory does under `wrangler dev` with no application code (issue 10, item 3: the
// load bench's memory figures need this baseline). Printed, never asserted.
//
// Starts bench/peer's worker fresh for each case and drives it at concurrency FLOOR_MEM_CONCURRENCY (default 20)
// for FLOOR_MEM_PHASES (default 3) × FLOOR_MEM_SECONDS (default 20), reading the RSS of its workerd processes
// (wrangler's proxy and the worker's runtime) after each phase:
//   - "worker answers ok": GET /healthz, a worker that returns a constant;
//   - "platform floor": POST /floor/{name}, worker → Durable Object by name → fetch of the mock model's stream →
//     streamed back (the shape of a turn, bench/peer/worker.ts);
//   - "floor, RPC + write": the same over RPC, after one SQLite row committed in a transaction (an admission's
//     shape; 20 objects whose tables grow by a row per request);
//   - "floor, paced like the load bench": the floor again, the mock answering as bench/load.mjs has it answer
//     (a 12-word reply, 20 ms between frames), so its KiB per request compares with that bench's KiB per turn.
// Compare with bench/load.mjs (Switchboard's turns): memory the runtime takes per request served with no code of
// ours is the baseline its RSS growth is read against.

import { log, performance, round, standalone, table } from "./lib.mjs";
import { workerdRssMiB } from "./load.mjs";
import { startPeer } from "./peer.mjs";

const CONCURRENCY = Number(process.env.FLOOR_MEM_CONCURRENCY ?? 20);
const PHASES = Number(process.env.FLOOR_MEM_PHASES ?? 3);
const SECONDS = Number(process.env.FLOOR_MEM_SECONDS ?? 20);

const PACED_MODEL = "bench-floor-memory-paced";
/** bench/load.mjs's text answer and pacing. */
const PACED_STEP = {
  reply: { text: "a paced reply of twelve words from the mock model, like a real one" },
  faults: { event_delay_ms: 20 },
};

const floorBody = (model) =>
  JSON.stringify({
    model,
    max_tokens: 1024,
    stream: true,
    system: "You are a benchmark agent.",
    messages: [{ role: "user", content: "hello there switchboard, please echo these few words back" }],
  });
const FLOOR_BODY = floorBody("bench-floor-memory");
const PACED_BODY = floorBody(PACED_MODEL);

const CASES = {
  "worker answers ok": (url) => fetch(`${url}/healthz`),
  "platform floor": (url, i) =>
    fetch(`${url}/floor/mem-${i}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: FLOOR_BODY,
    }),
  "floor, RPC + write": (url, i) =>
    fetch(`${url}/floor/mem-${i}?via=rpc-write`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: FLOOR_BODY,
    }),
  "floor, paced like the load bench": (url, i) =>
    fetch(`${url}/floor/mem-${i}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: PACED_BODY,
    }),
};

async function measure(env, request) {
  const peer = await startPeer(env);
  try {
    const rssStart = await workerdRssMiB(peer.pid);
    const phases = [];
    let requests = 0;
    let failed = 0;
    for (let phase = 0; phase < PHASES; phase++) {
      const deadline = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, i) => {
          while (performance.now() < deadline) {
            const res = await request(peer.url, i);
            await res.arrayBuffer();
            if (!res.ok) failed += 1;
            requests += 1;
          }
        }),
      );
      phases.push({ requests, rss_mib: await workerdRssMiB(peer.pid) });
    }
    return { rss_mib_start: rssStart, phases, failed };
  } finally {
    await peer.stop();
  }
}

export async function run(env) {
  // Enough paced answers for the paced case (one per request; unpaced default answers would follow).
  const paced = Math.ceil((CONCURRENCY * PHASES * SECONDS * 1000) / (13 * PACED_STEP.faults.event_delay_ms));
  for (let i = 0; i < paced; i += 2000) {
    await env.mock.script(
      PACED_MODEL,
      Array.from({ length: Math.min(2000, paced - i) }, () => PACED_STEP),
    );
  }
  const figures = {};
  for (const [name, request] of Object.entries(CASES)) {
    log(`floor-memory: ${name}`);
    figures[name] = await measure(env, request);
  }
  table(
    `Floor memory — workerd RSS under wrangler dev with no application code (${CONCURRENCY} concurrent, ${PHASES} × ${SECONDS} s)`,
    ["case", "requests", "failed", "RSS start MiB", "RSS after each phase MiB", "KiB per request (start → end)"],
    Object.entries(figures).map(([name, f]) => {
      const last = f.phases.at(-1);
      return [
        name,
        last.requests,
        f.failed,
        f.rss_mib_start,
        f.phases.map((p) => p.rss_mib).join(" → "),
        round(((last.rss_mib - f.rss_mib_start) * 1024) / last.requests, 1),
      ];
    }),
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("floor-memory", run);
