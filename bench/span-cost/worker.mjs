// The micro-bench worker of bench/span-cost.mjs: `GET /?spans=on|off&shape=sync|async&n=N` calls a tiny function
// N times through the turn's span helper (`inSpan` of src/observability/tracing.ts, as shipped), with the
// helpers on (`tracing.enterSpan` when the runtime has it) or off (`setSpans(false)`, as
// SWITCHBOARD_DEBUG_NO_SPANS: the function is called directly). `async`: the function returns a promise, awaited,
// as the turn's spans (turn, step, provider request, tool call) do. Answers whether the runtime has the tracing
// API, so the bench can say which path it measured. The bench reads the CPU from /proc around each request.
import * as workers from "cloudflare:workers";
import { inSpan, setSpans } from "../../src/observability/tracing.ts";

/** A step span's attributes (turn-runner.ts): what one `inSpan` of a turn sets. */
const ATTRIBUTES = { "switchboard.turn_id": "turn_bench", "switchboard.step": 1, "switchboard.provider": "anthropic" };

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n") ?? 100_000);
    const on = url.searchParams.get("spans") !== "off";
    const shape = url.searchParams.get("shape") === "async" ? "async" : "sync";
    setSpans(on);
    let calls = 0;
    const t0 = performance.now();
    if (shape === "sync") {
      for (let i = 0; i < n; i++) inSpan("switchboard.step", ATTRIBUTES, () => calls++);
    } else {
      for (let i = 0; i < n; i++) await inSpan("switchboard.step", ATTRIBUTES, async () => calls++);
    }
    // The runtime's clock may stand still inside the loop (it advances on I/O): the bench's figure is /proc's.
    const clock_ms = performance.now() - t0;
    const tracing = typeof workers.tracing?.enterSpan === "function";
    return Response.json({ spans: on ? "on" : "off", shape, n, calls, clock_ms, tracing });
  },
};
