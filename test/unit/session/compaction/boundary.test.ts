// Property test: a compaction boundary never splits a tool_use from its tool_result, lies inside the running turn
// only at a step boundary of the request it answers (carried verbatim), and the summarised side's transcript carries
// every user message it replaces.
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../../bench/random";
import type { Message, Part } from "../../../../src/model/message";
import {
  chooseBoundary,
  chooseCut,
  requestIndex,
  safeBoundaries,
  stepBoundaries,
  turnsBefore,
  userParts,
} from "../../../../src/session/compaction/boundary";
import { transcriptLines } from "../../../../src/session/compaction/transcript";

type Outcome = "answered" | "synthesized" | "skipped";

/** A stored message of `turn`: the model's when an assistant one, else the client's. */
function message(seq: number, role: Message["role"], turn: string, parts: Part[]): Message {
  return { seq, role, origin: role === "assistant" ? "model" : "client", turn_id: turn, parts, created_at: "" };
}

interface Generated {
  messages: Message[];
  /** Index of the running turn's first message, or messages.length when no turn runs. */
  limit: number;
  /** The view starts partway through its first turn, whose request the preamble carries (a cut inside that turn). */
  carried: boolean;
}

/**
 * Random histories shaped like the store writes them: a turn opens with a user message (results of the
 * previous turn's open calls first, then text), steps alternate assistant (text and/or tool_uses) and a user
 * message answering every call (answered, synthesized or skipped results); a turn may pause with open calls,
 * a retry turn may start without a user message (or, after a pause, with the results alone), and the newest turn
 * may be running with pending calls. A quarter start partway through their first turn (its first step's calls), as
 * the view does after a cut inside a turn, whose request the preamble carries.
 */
function generate(rand: () => number): Generated {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const messages: Message[] = [];
  let seq = 0;
  let ids = 0;
  let open: string[] = [];
  const push = (role: Message["role"], turn: string, parts: Part[]) =>
    messages.push({ seq: ++seq, role, origin: "client", turn_id: turn, parts, created_at: "" });
  const results = (): Part[] => {
    const out: Part[] = open.map((id) => {
      const outcome = pick<Outcome>(["answered", "synthesized", "skipped"]);
      return { type: "tool_result", tool_use_id: id, content: outcome, is_error: outcome !== "answered" };
    });
    open = [];
    return out;
  };
  const turns = 1 + Math.floor(rand() * 12);
  const carried = rand() < 0.25;
  let limit = -1;
  for (let t = 0; t < turns; t++) {
    const turn = `turn_${t}`;
    const last = t === turns - 1;
    const running = last && rand() < 0.5;
    const retry = t > 0 && rand() < 0.15;
    if (retry && open.length > 0) {
      // A retry (or tool_results with no text) superseding the pause: the results alone.
      push("user", turn, results());
      if (running) limit = messages.length - 1;
    } else if (t === 0 && carried) {
      // Its message was summarised; the preamble carries its request.
      if (running) limit = 0;
    } else if (!retry) {
      push("user", turn, [...results(), { type: "text", text: `user text ${t}` }]);
      if (running) limit = messages.length - 1;
    } else if (running) limit = messages.length;
    const steps = Math.floor(rand() * 4) + (t === 0 && carried ? 1 : 0);
    for (let s = 0; s < steps; s++) {
      const calls = Math.floor(rand() * 4);
      const parts: Part[] = [{ type: "text", text: `assistant ${t}.${s}` }];
      for (let c = 0; c < calls; c++) {
        const id = `call_${++ids}`;
        parts.push({ type: "tool_use", id, name: pick(["a", "b", "c"]), input: {} });
        open.push(id);
      }
      push("assistant", turn, parts);
      if (open.length === 0) break;
      const pause = rand() < 0.2 || (running && s === steps - 1 && rand() < 0.5);
      if (pause) break; // awaiting client results (or still running): the calls stay open
      push("user", turn, results());
    }
  }
  return { messages, limit: limit === -1 ? messages.length : limit, carried };
}

/** Problems with cutting at `b`: pairs split across it. */
function splitPairs(messages: Message[], b: number): string[] {
  const where = new Map<string, number>();
  messages.forEach((m, i) => {
    for (const p of m.parts) if (p.type === "tool_use") where.set(p.id, i);
  });
  const problems: string[] = [];
  messages.forEach((m, i) => {
    for (const p of m.parts) {
      if (p.type !== "tool_result") continue;
      const use = where.get(p.tool_use_id);
      if (use !== undefined && use < b !== i < b) problems.push(`${p.tool_use_id} split at ${b}`);
    }
  });
  // A call still open (no result yet) must lie after the boundary: its result will come later.
  const answered = new Set(
    messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool_result" ? [p.tool_use_id] : []))),
  );
  for (const [id, i] of where) if (!answered.has(id) && i < b) problems.push(`open ${id} before ${b}`);
  return problems;
}

describe("compaction boundary (property)", () => {
  it("no safe boundary splits a pair, lies inside the running turn or after a same-turn message", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const { messages, limit, carried } = generate(mulberry32(seed));
      for (const b of safeBoundaries(messages, limit, carried)) {
        expect(splitPairs(messages, b), `seed ${seed}`).toEqual([]);
        expect(b).toBeLessThanOrEqual(limit);
        const m = messages[b];
        if (m?.role === "assistant") {
          // Before a paused turn's calls: the next message starts a turn, answering them, and is within the limit.
          const next = messages[b + 1];
          expect(next?.role).toBe("user");
          expect(next?.turn_id).not.toBe(m.turn_id);
          expect(b + 1).toBeLessThanOrEqual(limit);
        } else if (m) {
          expect(m.role).toBe("user");
          expect(m.turn_id).not.toBe(messages[b - 1]?.turn_id);
        } else expect(messages[b - 1]?.role).toBe("assistant"); // a trailing user message stays for /retry
      }
    }
  });

  it("the chosen boundary is a safe one and the summarised side's transcript carries every user message", () => {
    let chosen = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const rand = mulberry32(seed);
      const { messages, limit, carried } = generate(rand);
      const sizes = messages.map(() => 1 + Math.floor(rand() * 50));
      const b = chooseBoundary(messages, sizes, {
        limit,
        keepRecentTurns: Math.floor(rand() * 4),
        maxKeptTokens: Math.floor(rand() * 300),
        carriedTokens: carried ? 10 : null,
      });
      if (b === null) {
        expect(safeBoundaries(messages, limit, carried)).toEqual([]);
        continue;
      }
      chosen++;
      expect(safeBoundaries(messages, limit, carried)).toContain(b);
      const lines = transcriptLines(messages.slice(0, b));
      for (const m of messages.slice(0, b)) {
        for (const p of m.parts) if (p.type === "text" && m.role === "user") expect(lines).toContain(`User: ${p.text}`);
      }
    }
    expect(chosen).toBeGreaterThan(1000);
  });

  it("a turn opening with the results of the paused turn's calls is cut before those calls, never between the pair", () => {
    const messages: Message[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }], created_at: "" },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t1",
        parts: [{ type: "tool_use", id: "c1", name: "a", input: {} }],
        created_at: "",
      },
      {
        seq: 3,
        role: "user",
        origin: "client",
        turn_id: "t2",
        parts: [
          { type: "tool_result", tool_use_id: "c1", content: "x", is_error: false },
          { type: "text", text: "next" },
        ],
        created_at: "",
      },
    ];
    expect(safeBoundaries(messages, 2, false)).toEqual([1]);
    expect(
      chooseBoundary(messages, [1, 1, 1], { limit: 2, keepRecentTurns: 0, maxKeptTokens: 100, carriedTokens: null }),
    ).toBe(1);
  });

  it("a retry's notice-only first message is no boundary: the failed turn's own message stays for the retry", () => {
    const user = (seq: number, turn: string, parts: Part[]): Message => ({
      seq,
      role: "user",
      origin: "client",
      turn_id: turn,
      parts,
      created_at: "",
    });
    const messages: Message[] = [
      user(1, "t1", [{ type: "text", text: "hi" }]),
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t1",
        parts: [{ type: "text", text: "yo" }],
        created_at: "",
      },
      // t2 failed before the model answered; t3 retries it, admitted with a tool-set notice and no text.
      user(3, "t2", [{ type: "text", text: "the question to re-run" }]),
      user(4, "t3", [{ type: "notice", kind: "tools_changed", text: "<tools_added>x</tools_added>" }]),
    ];
    expect(safeBoundaries(messages, 3, false)).toEqual([2]);
    expect(
      chooseBoundary(messages, [1, 1, 1, 1], { limit: 3, keepRecentTurns: 0, maxKeptTokens: 0, carriedTokens: null }),
    ).toBe(2);
  });
  it("a retry superseding a paused turn (results, no text) is not cut before the calls: the paused turn's message stays", () => {
    const messages: Message[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }], created_at: "" },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t1",
        parts: [{ type: "text", text: "yo" }],
        created_at: "",
      },
      {
        seq: 3,
        role: "user",
        origin: "client",
        turn_id: "t2",
        parts: [{ type: "text", text: "re-run me" }],
        created_at: "",
      },
      {
        seq: 4,
        role: "assistant",
        origin: "model",
        turn_id: "t2",
        parts: [{ type: "tool_use", id: "c1", name: "a", input: {} }],
        created_at: "",
      },
      {
        seq: 5,
        role: "user",
        origin: "synthetic",
        turn_id: "t3",
        parts: [{ type: "tool_result", tool_use_id: "c1", content: "superseded", is_error: true }],
        created_at: "",
      },
    ];
    expect(safeBoundaries(messages, 4, false)).toEqual([2]);
  });

  it("retries superseding paused turns that carry no request of their own are cut before the paused calls", () => {
    const use = (seq: number, turn: string, id: string): Message => ({
      seq,
      role: "assistant",
      origin: "model",
      turn_id: turn,
      parts: [{ type: "tool_use", id, name: "ask_user", input: {} }],
      created_at: "",
    });
    const superseded = (seq: number, turn: string, id: string): Message => ({
      seq,
      role: "user",
      origin: "synthetic",
      turn_id: turn,
      parts: [{ type: "tool_result", tool_use_id: id, content: "superseded", is_error: true }],
      created_at: "",
    });
    const messages: Message[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }], created_at: "" },
      use(2, "t1", "c1"),
      superseded(3, "t2", "c1"),
      use(4, "t2", "c2"),
      superseded(5, "t3", "c2"),
      use(6, "t3", "c3"),
      superseded(7, "t4", "c3"),
    ];
    // t1's request ("hi") stays with its calls; t2 and t3 opened with results alone: nothing of the user's to keep.
    expect(safeBoundaries(messages, 6, false)).toEqual([3, 5]);
    expect(
      chooseBoundary(messages, Array(7).fill(1), {
        limit: 6,
        keepRecentTurns: 0,
        maxKeptTokens: 100,
        carriedTokens: null,
      }),
    ).toBe(5);
  });

  it("a retry superseding a paused retry of a failed turn is not cut before the calls: the failed turn's message stays", () => {
    const messages: Message[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }], created_at: "" },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t1",
        parts: [{ type: "text", text: "yo" }],
        created_at: "",
      },
      // t2 failed before the model answered; t3 retried it (admitted with a tool-set notice, no text) and paused on
      // a call; t4 retries again.
      {
        seq: 3,
        role: "user",
        origin: "client",
        turn_id: "t2",
        parts: [{ type: "text", text: "the question to re-run" }],
        created_at: "",
      },
      {
        seq: 4,
        role: "user",
        origin: "client",
        turn_id: "t3",
        parts: [{ type: "notice", kind: "tools_changed", text: "<tools_added>x</tools_added>" }],
        created_at: "",
      },
      {
        seq: 5,
        role: "assistant",
        origin: "model",
        turn_id: "t3",
        parts: [{ type: "tool_use", id: "c1", name: "ask_user", input: {} }],
        created_at: "",
      },
      {
        seq: 6,
        role: "user",
        origin: "synthetic",
        turn_id: "t4",
        parts: [{ type: "tool_result", tool_use_id: "c1", content: "superseded", is_error: true }],
        created_at: "",
      },
    ];
    expect(safeBoundaries(messages, 5, false)).toEqual([2]);
  });

  it("a retry of a turn that failed after a tool step keeps that turn's request: no boundary inside the retry", () => {
    const messages: Message[] = [
      message(1, "user", "e", [{ type: "text", text: "hi" }]),
      message(2, "assistant", "e", [{ type: "text", text: "yo" }]),
      // t0 failed after a tool step: its last message is the call's results, its request is its first message.
      message(3, "user", "t0", [{ type: "text", text: "DO THE IMPORTANT THING" }]),
      message(4, "assistant", "t0", [{ type: "tool_use", id: "a", name: "a", input: {} }]),
      message(5, "user", "t0", [{ type: "tool_result", tool_use_id: "a", content: "ok", is_error: false }]),
      // t1 is its /retry (no message of its own), paused on a call; t2 answers it with the results alone.
      message(6, "assistant", "t1", [{ type: "tool_use", id: "b", name: "b", input: {} }]),
      message(7, "user", "t2", [{ type: "tool_result", tool_use_id: "b", content: "ok", is_error: false }]),
      message(8, "assistant", "t2", [{ type: "text", text: "done" }]),
    ];
    expect(safeBoundaries(messages, messages.length, false)).toEqual([2, 8]);
  });
});

describe("a cut inside the running turn (chooseCut)", () => {
  /** The random history of `seed` (`generate`), the cut chosen while its newest turn runs, and what it is judged by. */
  function runningCut(seed: number) {
    const rand = mulberry32(seed);
    const { messages, limit, carried } = generate(rand);
    const sizes = messages.map(() => 1 + Math.floor(rand() * 50));
    const opts = { limit, keepRecentTurns: Math.floor(rand() * 4), maxKeptTokens: Math.floor(rand() * 300) };
    const carriedTokens = carried ? 1 + Math.floor(rand() * 50) : null;
    const cut = chooseCut(messages, sizes, { ...opts, running: true, carriedTokens });
    return { messages, cut, request: requestIndex(messages, limit), safe: safeBoundaries(messages, limit, carried) };
  }

  it("is a safe boundary or falls right after a step's results before the latest step, splits no pair, skips nothing said since", () => {
    let inside = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const { messages, cut, request, safe } = runningCut(seed);
      if (cut === null) {
        expect(safe).toEqual([]);
        expect(stepBoundaries(messages, Math.max(request, 0)).filter((b) => b < messages.length)).toEqual([]);
        continue;
      }
      expect(splitPairs(messages, cut.at), `seed ${seed}`).toEqual([]);
      expect(messages[cut.at]?.parts.some((p) => p.type === "tool_result") ?? false).toBe(false);
      if (cut.request === undefined) {
        expect(safe).toContain(cut.at);
        continue;
      }
      const since = messages.slice(cut.request + 1, cut.at).filter((m) => m.role === "user");
      expect(since.flatMap(userParts)).toEqual([]);
      if (safe.includes(cut.at)) continue;
      inside++;
      expect(messages[cut.at - 1]?.parts.some((p) => p.type === "tool_result")).toBe(true);
      expect(cut.at).toBeLessThan(messages.length);
    }
    expect(inside).toBeGreaterThan(300);
  });

  it("never summarises the request the running turn answers without carrying it", () => {
    let carriedAtTurn = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const { cut, request, safe } = runningCut(seed);
      if (cut === null) continue;
      // -1: the view does not hold it, and the preamble carries it on (or none, when the view holds no request).
      expect(cut.request, `seed ${seed}`).toBe(request < cut.at ? request : undefined);
      if (cut.request !== undefined && safe.includes(cut.at)) carriedAtTurn++;
    }
    expect(carriedAtTurn).toBeGreaterThan(10);
  });

  const message = (seq: number, role: Message["role"], parts: Part[]): Message => ({
    seq,
    role,
    origin: role === "assistant" ? "model" : "client",
    turn_id: "t1",
    parts,
    created_at: "",
  });
  const call = (seq: number, id: string) => message(seq, "assistant", [{ type: "tool_use", id, name: "a", input: {} }]);
  const result = (seq: number, id: string) =>
    message(seq, "user", [{ type: "tool_result", tool_use_id: id, content: "ok", is_error: false }]);
  // One turn, nothing before it: two finished steps, then a step paused on its call.
  const turn: Message[] = [
    message(1, "user", [{ type: "text", text: "the request" }]),
    call(2, "c1"),
    result(3, "c1"),
    call(4, "c2"),
    result(5, "c2"),
    call(6, "c3"),
  ];
  const sizes = Array(6).fill(10);

  it("keeps as many finished steps as fit beside the request, and a paused step whole", () => {
    const opts = { limit: 0, keepRecentTurns: 2, running: true, carriedTokens: null };
    expect(chooseCut(turn, sizes, { ...opts, maxKeptTokens: 100 })).toEqual({ at: 3, request: 0 });
    expect(chooseCut(turn, sizes, { ...opts, maxKeptTokens: 35 })).toEqual({ at: 5, request: 0 });
    // Even when nothing fits, the cut stays before the paused step's calls.
    expect(chooseCut(turn, sizes, { ...opts, maxKeptTokens: 0 })).toEqual({ at: 5, request: 0 });
  });

  it("keeps the latest step, whose results the model has yet to read", () => {
    const finished = turn.slice(0, 5);
    const opts = { limit: 0, keepRecentTurns: 2, maxKeptTokens: 0, running: true, carriedTokens: null };
    expect(chooseCut(finished, sizes.slice(0, 5), opts)).toEqual({ at: 3, request: 0 });
    expect(chooseCut(finished.slice(0, 3), sizes.slice(0, 3), opts)).toBeNull();
  });

  it("never cuts inside a turn for POST /compact (no turn running)", () => {
    const opts = { limit: turn.length, keepRecentTurns: 2, maxKeptTokens: 0, carriedTokens: null };
    expect(chooseCut(turn, sizes, { ...opts, running: false })).toBeNull();
  });

  it("prefers the turn boundary while the running turn fits after it", () => {
    const before = [message(0, "user", [{ type: "text", text: "earlier" }]), message(0, "assistant", [])];
    const messages = [...before, ...turn].map((m, i) => ({ ...m, seq: i + 1, turn_id: i < 2 ? "t0" : "t1" }));
    const opts = { limit: 2, keepRecentTurns: 0, running: true, carriedTokens: null };
    expect(chooseCut(messages, Array(8).fill(10), { ...opts, maxKeptTokens: 60 })).toEqual({ at: 2 });
    expect(chooseCut(messages, Array(8).fill(10), { ...opts, maxKeptTokens: 59 })).toEqual({ at: 5, request: 2 });
  });
});

describe("the request a running turn of results alone goes on with", () => {
  const ask = (seq: number, turn: string, id: string) =>
    message(seq, "assistant", turn, [{ type: "tool_use", id, name: "ask_user", input: {} }]);
  const answer = (seq: number, turn: string, id: string) =>
    message(seq, "user", turn, [{ type: "tool_result", tool_use_id: id, content: "yes", is_error: false }]);

  it("is carried by a cut before the paused calls that summarises it", () => {
    // t1 asks and pauses; t2 answers with the results alone and pauses again; t3 answers likewise and runs.
    const messages: Message[] = [
      message(1, "user", "t1", [{ type: "text", text: "the request" }]),
      ask(2, "t1", "c1"),
      answer(3, "t2", "c1"),
      ask(4, "t2", "c2"),
      answer(5, "t3", "c2"),
    ];
    const opts = { limit: 4, keepRecentTurns: 0, maxKeptTokens: 100, carriedTokens: null, running: true };
    expect(chooseCut(messages, Array(5).fill(1), opts)).toEqual({ at: 3, request: 0 });
  });

  // A cut inside t1 kept its latest steps (the preamble carries t1's request); t1 paused on ask_user, and t2 answers
  // with the results alone.
  const partway: Message[] = [
    message(5, "assistant", "t1", [{ type: "tool_use", id: "e1", name: "echo_core", input: {} }]),
    answer(6, "t1", "e1"),
    ask(7, "t1", "c1"),
    answer(8, "t2", "c1"),
    message(9, "assistant", "t2", [{ type: "tool_use", id: "e2", name: "echo_core", input: {} }]),
    answer(10, "t2", "e2"),
    message(11, "assistant", "t2", [{ type: "text", text: "done" }]),
  ];

  it("in a view that starts partway through its turn (the preamble carries it) is that turn's: no boundary before the paused calls", () => {
    expect(safeBoundaries(partway, 3, true)).toEqual([]);
    expect(turnsBefore(partway, partway.length, true)).toBe(1);
  });

  it("in a view that starts partway through its turn is carried on by the step cut that follows", () => {
    const opts = { limit: 3, keepRecentTurns: 0, maxKeptTokens: 100, carriedTokens: 5, running: true };
    expect(chooseCut(partway, Array(7).fill(10), opts)).toEqual({ at: 2, request: -1 });
  });
});

describe("turnsBefore", () => {
  const say = (text: string): Part[] => [{ type: "text", text }];

  it("counts each finished turn, a failed or paused one after the last boundary too, but not the running one", () => {
    const one = [message(1, "user", "t1", say("hi")), message(2, "assistant", "t1", say("yo"))];
    expect(turnsBefore(one, one.length, false)).toBe(1);
    // t2 failed before the model answered: its message is a turn of its own.
    const failed = [...one, message(3, "user", "t2", say("again"))];
    expect(turnsBefore(failed, failed.length, false)).toBe(2);
    // t2 paused on a call.
    const paused = [
      ...one,
      message(3, "user", "t2", say("ask")),
      message(4, "assistant", "t2", [{ type: "tool_use", id: "c", name: "ask_user", input: {} }]),
    ];
    expect(turnsBefore(paused, paused.length, false)).toBe(2);
    // t2 is running: only t1 is before it.
    expect(turnsBefore(failed, 2, false)).toBe(1);
  });
});
