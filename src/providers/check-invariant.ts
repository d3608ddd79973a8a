/**
 * Invariant P (DESIGN §3) checked on the exact wire body, after projection,
 * so a projection bug is caught as surely as a history bug. Both protocols
 * are first reduced to the same shape: alternating assistant entries (the
 * calls) and user entries (results, then anything else); OpenAI's run of
 * `tool` messages plus a following `user` message is one user entry; a
 * Responses API `input` is read the same way (a run of assistant messages,
 * `function_call` and `compaction` items is one assistant entry, a run of
 * `function_call_output` items and user messages one user entry).
 */
import { asArr, asObj, asStr, type Obj } from "./json";
import type { ProviderName } from "./types";

/** The rule a wire body breaks, named after the part of invariant P it belongs to. */
export type InvariantRule =
  /** P1: a tool_use without a result in the next user message. */
  | "unanswered_tool_use"
  /** P1: a tool_use answered more than once. */
  | "duplicate_tool_result"
  /** P2: a tool_result after other content of its message. */
  | "tool_result_not_first"
  /** P2: results not in the order of their tool_uses. */
  | "tool_result_out_of_order"
  /** P3: a result for a call that is not in the message just before. */
  | "orphan_tool_result"
  /** P4: a tool_use id used twice. */
  | "duplicate_tool_use_id"
  /** P5, as far as the wire shows it: a call whose input is not a JSON object. */
  | "invalid_tool_input"
  /** P6: a result sent for a provider-side (server) tool call. */
  | "server_tool_answered";

interface InvariantViolation {
  rule: InvariantRule;
  /** Index in the wire body's `messages` array (Responses API: its `input` array). */
  message_index: number;
  tool_use_id?: string;
  detail: string;
}

interface Use {
  id: string;
  server: boolean;
  inputOk: boolean;
  at: number;
}

interface Result {
  id: string;
  afterOther: boolean;
  at: number;
}

interface Entry {
  role: "assistant" | "user" | "other";
  at: number;
  uses: Use[];
  results: Result[];
  hasOther: boolean;
}

const SERVER_ID_PREFIX = "srvtoolu_";

export function checkInvariant(protocol: ProviderName, body: Record<string, unknown>): InvariantViolation[] {
  if (protocol === "openai-responses") return checkEntries(fromResponses((asArr(body.input) ?? []).map(toObj)));
  const messages = (asArr(body.messages) ?? []).map(toObj);
  const entries = protocol === "anthropic" ? fromAnthropic(messages) : fromOpenAI(messages);
  return checkEntries(entries);
}

/** The same check as readable lines, for logs and error messages. */
export function checkWireInvariant(protocol: ProviderName, body: Record<string, unknown>): string[] {
  const where = protocol === "openai-responses" ? "input" : "messages";
  return checkInvariant(protocol, body).map((v) => `${v.rule} at ${where}[${v.message_index}]: ${v.detail}`);
}

function toObj(value: unknown): Obj {
  return asObj(value) ?? {};
}

/** Responses API input items → entries: calls join the assistant entry, outputs the user entry. */
function fromResponses(items: Obj[]): Entry[] {
  const entries: Entry[] = [];
  const open = (role: Entry["role"], at: number): Entry => {
    const last = entries[entries.length - 1];
    if (last && last.role === role && role !== "other") return last;
    const entry: Entry = { role, at, uses: [], results: [], hasOther: false };
    entries.push(entry);
    return entry;
  };
  items.forEach((item, at) => {
    const type = asStr(item.type) ?? "message";
    const role = asStr(item.role);
    if (type === "function_call") {
      const id = asStr(item.call_id) ?? "";
      open("assistant", at).uses.push({ id, server: false, inputOk: argumentsAreObject(item.arguments), at });
    } else if (type === "function_call_output") {
      const entry = open("user", at);
      entry.results.push({ id: asStr(item.call_id) ?? "", afterOther: entry.hasOther, at });
    } else if (type === "compaction" || (type === "message" && role === "assistant")) {
      open("assistant", at).hasOther = true;
    } else if (type === "message" && role === "user") {
      open("user", at).hasOther = true;
    } else {
      open("other", at).hasOther = true;
    }
  });
  return entries;
}

function fromAnthropic(messages: Obj[]): Entry[] {
  return messages.map((message, at) => {
    const role = asStr(message.role);
    const entry: Entry = {
      role: role === "assistant" || role === "user" ? role : "other",
      at,
      uses: [],
      results: [],
      hasOther: false,
    };
    const content = asArr(message.content);
    if (!content) {
      entry.hasOther = asStr(message.content) !== undefined;
      return entry;
    }
    for (const raw of content) {
      const block = asObj(raw) ?? {};
      const type = asStr(block.type);
      if (type === "tool_use" || type === "server_tool_use") {
        const id = asStr(block.id) ?? "";
        entry.uses.push({ id, server: type === "server_tool_use", inputOk: asObj(block.input) !== undefined, at });
      } else if (type === "tool_result") {
        entry.results.push({ id: asStr(block.tool_use_id) ?? "", afterOther: entry.hasOther, at });
      } else {
        entry.hasOther = true;
      }
    }
    return entry;
  });
}

function fromOpenAI(messages: Obj[]): Entry[] {
  const entries: Entry[] = [];
  messages.forEach((message, at) => {
    const role = asStr(message.role);
    const last = entries[entries.length - 1];
    if (role === "assistant") {
      const entry: Entry = { role: "assistant", at, uses: [], results: [], hasOther: false };
      for (const raw of asArr(message.tool_calls) ?? []) {
        const call = asObj(raw) ?? {};
        const id = asStr(call.id) ?? "";
        entry.uses.push({ id, server: false, inputOk: argumentsAreObject(asObj(call.function)?.arguments), at });
      }
      entries.push(entry);
    } else if (role === "tool" || role === "user") {
      const entry: Entry = last?.role === "user" ? last : { role: "user", at, uses: [], results: [], hasOther: false };
      if (entry !== last) entries.push(entry);
      if (role === "tool")
        entry.results.push({ id: asStr(message.tool_call_id) ?? "", afterOther: entry.hasOther, at });
      else entry.hasOther = true;
    } else {
      entries.push({ role: "other", at, uses: [], results: [], hasOther: true });
    }
  });
  return entries;
}

function argumentsAreObject(args: unknown): boolean {
  if (typeof args !== "string") return false;
  try {
    return asObj(JSON.parse(args) as unknown) !== undefined;
  } catch {
    return false;
  }
}

function checkEntries(entries: Entry[]): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  const serverIds = new Set(entries.flatMap((e) => e.uses.filter((u) => u.server).map((u) => u.id)));
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    for (const use of entry.uses) {
      if (seen.has(use.id)) {
        out.push(violation("duplicate_tool_use_id", use.at, use.id, `tool_use id ${use.id} appears more than once`));
      }
      seen.add(use.id);
      if (!use.inputOk) {
        out.push(violation("invalid_tool_input", use.at, use.id, `tool_use ${use.id} input is not a JSON object`));
      }
    }
    if (entry.role === "assistant") checkAnswers(entry, entries[i + 1], out);
    checkResults(entry, entries[i - 1], serverIds, out);
  });
  return out;
}

/** P1: every client-side call of this assistant entry is answered exactly once by the next entry. */
function checkAnswers(entry: Entry, next: Entry | undefined, out: InvariantViolation[]): void {
  const answers = next?.role === "user" ? next.results : [];
  for (const use of entry.uses) {
    if (use.server) continue;
    const count = answers.filter((r) => r.id === use.id).length;
    if (count === 0) {
      out.push(
        violation(
          "unanswered_tool_use",
          use.at,
          use.id,
          `tool_use ${use.id} has no tool_result in the next user message`,
        ),
      );
    } else if (count > 1) {
      out.push(violation("duplicate_tool_result", use.at, use.id, `tool_use ${use.id} is answered ${count} times`));
    }
  }
}

/** P2, P3, P6 for the results held by one entry. */
function checkResults(entry: Entry, prev: Entry | undefined, serverIds: Set<string>, out: InvariantViolation[]): void {
  const calls = prev?.role === "assistant" && entry.role === "user" ? prev.uses.filter((u) => !u.server) : [];
  const order = new Map(calls.map((use, i) => [use.id, i]));
  let highest = -1;
  let reportedOrder = false;
  for (const result of entry.results) {
    if (result.id.startsWith(SERVER_ID_PREFIX) || serverIds.has(result.id)) {
      out.push(
        violation("server_tool_answered", result.at, result.id, `tool_result answers server tool call ${result.id}`),
      );
      continue;
    }
    const position = order.get(result.id);
    if (position === undefined) {
      out.push(
        violation(
          "orphan_tool_result",
          result.at,
          result.id,
          `tool_result ${result.id} has no tool_use in the message just before`,
        ),
      );
      continue;
    }
    if (result.afterOther) {
      out.push(
        violation("tool_result_not_first", result.at, result.id, `tool_result ${result.id} follows other content`),
      );
    }
    if (position < highest && !reportedOrder) {
      reportedOrder = true;
      out.push(
        violation(
          "tool_result_out_of_order",
          result.at,
          result.id,
          `tool_result ${result.id} comes after the result of a later tool_use`,
        ),
      );
    }
    highest = Math.max(highest, position);
  }
}

function violation(rule: InvariantRule, at: number, id: string, detail: string): InvariantViolation {
  return { rule, message_index: at, tool_use_id: id, detail };
}
