// Bench — A/B of two builds (issue 10): the working tree against an earlier commit, side by side on one
// machine, turns interleaved, so host load drifts over both alike. Printed, never asserted.
//
//   node_modules/.bin/node bench/ab.mjs <commit>     (BENCH_AB_TURNS, default 400; BENCH_AB_ROUNDS, default 2: keep it even;
//                                                   BENCH_AB_PAUSE_MS, default 0: idle before each timed turn;
//                                                   BENCH_AB_CONCURRENCY, default 1: turns sent at once;
//                                                   BENCH_AB_TOOLS, default 0: the agent's tools, lib.mjs
//                                                   manyToolsAgent: realistic, all but 10 deferred)
//
// The commit is checked out into a temporary git worktree (node_modules and the built web app are this tree's);
// each build gets its own mock and `wrangler dev` from its own bench/lib.mjs (same bench variables), its own agent
// and 10 sessions (or one per concurrent turn). After 30 warm-up turns each, `BENCH_AB_TURNS` text turns alternate
// A, B, A, B… (with BENCH_AB_CONCURRENCY = c > 1, each "turn" is c turns sent at once to c sessions, and its first
// delta the p50 of theirs, as peer.mjs's c=20 rows read them; B, A, B, A…
// in odd rounds: the build that goes first in a pair reads slower, by up to 0.4 ms in an A/A run, so an even
// number of rounds cancels it); the figures: user + system CPU per turn of each build's workerd processes
// (wrangler's proxy and the runtime, /proc) and wrangler's Node process, the p50 time to the first text delta,
// and the median of the paired differences (B's turn − A's turn next to it), per round and over all rounds.
// Each round is a fresh pair of environments.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sleep } from "../scripts/lib/process.mjs";
import { repoRoot } from "../test/helpers/index.ts";
import { groupCpu, log, manyToolsAgent, pct, requireNode, round, table } from "./lib.mjs";

const TURNS = Number(process.env.BENCH_AB_TURNS ?? 400);
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 2);
const WARMUP = 30;
/** Idle time before each timed turn (BENCH_AB_PAUSE_MS, default 0): `peer.mjs` waits 20 ms, and code runs colder then. */
const PAUSE_MS = Number(process.env.BENCH_AB_PAUSE_MS ?? 0);
const pause = () => (PAUSE_MS > 0 ? sleep(PAUSE_MS) : undefined);
/** Turns sent at once (BENCH_AB_CONCURRENCY, default 1), one per session. */
const CONCURRENCY = Math.max(1, Number(process.env.BENCH_AB_CONCURRENCY ?? 1));
const SESSIONS = Math.max(10, CONCURRENCY);
/** The agent's tools (BENCH_AB_TOOLS, default 0): bench/lib.mjs `manyToolsAgent`, the same for both builds. */
const TOOLS = Number(process.env.BENCH_AB_TOOLS ?? 0);

/** CPU ms so far of a build's processes, by kind: the runtime and proxy workerds, and wrangler's Node. */
async function cpuByKind(pgid) {
  const procs = await groupCpu(pgid);
  return {
    workerd: procs.filter((p) => p.comm.startsWith("workerd")),
    node: procs.filter((p) => p.comm === "node").reduce((sum, p) => sum + p.ms, 0),
  };
}

/** Per turn between two readings: the busier workerd is the runtime, the other wrangler's proxy. */
function perTurn(a, b, n) {
  const delta = b.workerd
    .map((w) => w.ms - (a.workerd.find((x) => x.pid === w.pid)?.ms ?? 0))
    .sort((x, y) => y - x)
    .map((ms) => round(ms / n, 2));
  return { runtime: delta[0] ?? null, proxy: delta[1] ?? null, node: round((b.node - a.node) / n, 2) };
}

async function build(lib, ttfb) {
  // Explicit, so an older build's bench/lib.mjs runs with the same event-line setting as this one.
  const env = await lib.startEnv({ SWITCHBOARD_LOG_EVENTS: process.env.BENCH_AB_LOG_EVENTS ?? "false" });
  const { agent, model } = await lib.makeAgent(env, "bench-ab");
  if (TOOLS > 0) await env.api.putAgent(agent, await manyToolsAgent(model, TOOLS));
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await lib.newSession(env, agent));
  if (CONCURRENCY === 1) return { env, turn: (i) => ttfb.switchboardTurn(env, sessions[i % SESSIONS]) };
  // c turns at once: the first delta of the batch is the p50 of its turns'.
  return {
    env,
    turn: async () => {
      const all = await Promise.all(sessions.slice(0, CONCURRENCY).map((s) => ttfb.switchboardTurn(env, s)));
      return {
        ttfb: pct(
          all.map((t) => t.ttfb),
          50,
        ),
      };
    },
  };
}

async function main() {
  requireNode();
  const rev = process.argv[2];
  if (!rev) throw new Error("usage: node bench/ab.mjs <commit>");
  const commit = execFileSync("git", ["rev-parse", "--verify", `${rev}^{commit}`], { cwd: repoRoot })
    .toString()
    .trim();
  const dir = await mkdtemp(path.join(tmpdir(), "switchboard-ab-"));
  const tree = path.join(dir, "tree");
  execFileSync("git", ["worktree", "add", "--detach", tree, commit], { cwd: repoRoot, stdio: "ignore" });
  try {
    await symlink(path.join(repoRoot, "node_modules"), path.join(tree, "node_modules"));
    await cp(path.join(repoRoot, "web", "dist"), path.join(tree, "web", "dist"), { recursive: true });
    const A = {
      lib: await import(path.join(tree, "bench", "lib.mjs")),
      ttfb: await import(path.join(tree, "bench", "ttfb.mjs")),
    };
    const B = { lib: await import("./lib.mjs"), ttfb: await import("./ttfb.mjs") };
    const rows = [];
    const figures = [];
    const allDiffs = [];
    for (let r = 0; r < ROUNDS; r++) {
      log(`ab: round ${r + 1} of ${ROUNDS}, ${commit.slice(0, 7)} against the working tree`);
      // Odd rounds start and time B first: whichever build goes first in a pair reads slower (an A/A run read
      // the second build 0.1–0.3 ms faster at the first delta and its wrangler Node ~0.25 ms cheaper).
      const bFirst = r % 2 === 1;
      const first = bFirst ? B : A;
      const second = bFirst ? A : B;
      const one = await build(first.lib, first.ttfb);
      const two = await build(second.lib, second.ttfb).catch(async (e) => {
        await one.env.stop();
        throw e;
      });
      const [a, b] = bFirst ? [two, one] : [one, two];
      try {
        for (let i = 0; i < WARMUP; i++) {
          await one.turn(i);
          await two.turn(i);
        }
        const [a0, b0] = [await cpuByKind(a.env.worker.pid), await cpuByKind(b.env.worker.pid)];
        const ta = [];
        const tb = [];
        const order = bFirst
          ? [
              [b, tb],
              [a, ta],
            ]
          : [
              [a, ta],
              [b, tb],
            ];
        for (let i = 0; i < TURNS; i++) {
          for (const [build, times] of order) {
            await pause();
            times.push((await build.turn(i)).ttfb);
          }
        }
        const diffs = tb.map((t, i) => t - ta[i]);
        allDiffs.push(...diffs);
        await sleep(300);
        const [a1, b1] = [await cpuByKind(a.env.worker.pid), await cpuByKind(b.env.worker.pid)];
        const round_ = {
          a: { ...perTurn(a0, a1, TURNS * CONCURRENCY), ttfb_p50_ms: round(pct(ta, 50), 2) },
          b: { ...perTurn(b0, b1, TURNS * CONCURRENCY), ttfb_p50_ms: round(pct(tb, 50), 2) },
          b_minus_a_median_ms: round(pct(diffs, 50), 2),
          b_first: bFirst,
        };
        figures.push(round_);
        for (const [who, x] of [
          [commit.slice(0, 7), round_.a],
          ["working tree", round_.b],
        ]) {
          rows.push([
            r + 1,
            who,
            x.runtime,
            x.proxy,
            x.node,
            x.ttfb_p50_ms,
            x === round_.b ? round_.b_minus_a_median_ms : "—",
          ]);
        }
      } finally {
        await a.env.stop();
        await b.env.stop();
      }
    }
    table(
      CONCURRENCY === 1
        ? `A/B — ${TURNS} interleaved text turns per build and round: CPU per turn (ms) and first text delta`
        : `A/B — ${TURNS} interleaved batches of ${CONCURRENCY} concurrent text turns per build and round: CPU per turn (ms) and the batches' first text delta p50`,
      [
        "round",
        "build",
        "runtime workerd",
        "proxy workerd",
        "wrangler node",
        "first delta p50 (ms)",
        "B − A, paired median",
      ],
      rows,
    );
    const b_minus_a_median_ms = round(pct(allDiffs, 50), 2);
    console.log(
      `all rounds: first delta B − A, median of ${allDiffs.length} paired ${CONCURRENCY === 1 ? "turns" : "batches"}: ${b_minus_a_median_ms} ms`,
    );
    console.log(
      JSON.stringify({
        bench: "ab",
        commit,
        turns: TURNS,
        concurrency: CONCURRENCY,
        rounds: figures,
        b_minus_a_median_ms,
      }),
    );
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", tree], { cwd: repoRoot, stdio: "ignore" });
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
