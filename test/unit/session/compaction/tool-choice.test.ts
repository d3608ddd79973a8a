// The loaded tools a compaction keeps and drops (toolChoice): a real LoadedTools over a small in-memory stand-in
// for the tables it reads, so a choice can be checked against what the loaded set says afterwards.
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../../src/agents/normalize";
import type { Message, Part } from "../../../../src/model/message";
import { toolChoice } from "../../../../src/session/compaction/tool-choice";
import { storedResultPart, type ToolCallRow } from "../../../../src/session/history/call-ledger";
import type { SessionTools } from "../../../../src/session/session-tools";
import { LoadedTools } from "../../../../src/tools/loaded-tools";
import { declarationDigest, ToolRegistry } from "../../../../src/tools/registry";
import type { RegisteredTool } from "../../../../src/tools/types";

type Loaded = { name: string; declared: number; declared_as: string | null };
type Sql = ConstructorParameters<typeof LoadedTools>[0];
type Storage = Parameters<typeof toolChoice>[0]["storage"];

/** The statements LoadedTools and toolChoice run, over rows in memory (no compactions, no past calls). */
function fakeSql(): Sql {
  const rows: Loaded[] = [];
  const cursor = (out: unknown[], written = 0) => ({ toArray: () => out, rowsWritten: written });
  const exec = (query: string, ...params: unknown[]) => {
    const q = query.replace(/\s+/g, " ").trim();
    if (q.startsWith("SELECT name, declared, declared_as FROM loaded_tools"))
      return cursor(rows.map((r) => ({ ...r })));
    if (q.startsWith("INSERT INTO loaded_tools")) {
      rows.push({ name: String(params[0]), declared: 0, declared_as: null });
      return cursor([], 1);
    }
    if (q.startsWith("UPDATE loaded_tools SET declared = 1")) {
      for (const r of rows) if (r.name === params[1]) Object.assign(r, { declared: 1, declared_as: params[0] });
      return cursor([], 1);
    }
    if (q.startsWith("DELETE FROM loaded_tools WHERE name = ?")) {
      rows.splice(0, rows.length, ...rows.filter((r) => r.name !== params[0]));
      return cursor([], 1);
    }
    if (q.startsWith("SELECT * FROM compactions") || q.startsWith("SELECT name, max(message_seq)")) return cursor([]);
    throw new Error(`fake SQL: unexpected statement ${q}`);
  };
  return { exec } as unknown as Sql;
}

const mcpTool = (tool: string): RegisteredTool => ({
  name: `mcp__crm__${tool}`,
  description: `${tool} on crm`,
  input_schema: { type: "object", properties: { id: { type: "string" } } },
  source: "mcp",
  deferred: true,
  mcp: { server: "crm", tool },
});

const agent = (model: string) =>
  normalizeAgent("a", { model: { provider: "openai", name: model, capabilities: { message_level_tools: true } } });

/** A session's loaded set, its registry listing the MCP tools in `listed` (a server down lists none), its open calls. */
function session(model: string, listed: RegisteredTool[], open: ToolCallRow[] = []) {
  const storage = { sql: fakeSql() } as unknown as Storage;
  const loaded = new LoadedTools(storage.sql);
  const a = agent(model);
  const tools = { loaded, registry: () => new ToolRegistry(a, listed) } as unknown as SessionTools;
  const history = { storedResults: () => open.filter((c) => c.result !== null).map(storedResultPart) };
  return { agent: a, loaded, listed, deps: { storage, tools, history } };
}

let seq = 0;
const msg = (role: Message["role"], parts: Part[]): Message => ({
  seq: ++seq,
  role,
  origin: "client",
  turn_id: "t",
  parts,
  created_at: "",
});

/** A turn that calls `name` and gets a plain text result. */
const calledIn = (name: string, id: string): Message[] => [
  msg("user", [{ type: "text", text: "look it up" }]),
  msg("assistant", [{ type: "tool_use", id, name, input: { id: "7" } }]),
  msg("user", [{ type: "tool_result", tool_use_id: id, content: "found", is_error: false }]),
];

/** A session that loaded `tool` and declared it while its server was up; the server is down now. */
function loadedThenDown(model: string, tool: RegisteredTool) {
  const s = session(model, [tool]);
  s.loaded.add([tool.name], "tool_search");
  s.loaded.markDeclared([tool.name], () => declarationDigest(tool));
  s.listed.length = 0;
  return s;
}

const declares = (name: string): Part => ({
  type: "tool_declarations",
  tools: [{ name, description: "", input_schema: { type: "object" } }],
});

describe("toolChoice: a loaded tool whose MCP server is down", () => {
  it("leaves the loaded set when the kept turns only call it, so it is declared again once its server is back", () => {
    const tool = mcpTool("lookup_choice_call");
    const s = loadedThenDown("m-choice-call", tool);
    // Its declaration is summarised away; the kept turns only call it.
    const summarised = [msg("user", [declares(tool.name)])];
    const { choice, snapshot } = toolChoice(s.deps, s.agent, 0, summarised, calledIn(tool.name, "call_choice_1"), "");
    expect(choice.dropped).toEqual([tool.name]);
    expect(snapshot.dropped).toEqual([tool.name]);
  });

  it("stays loaded when the kept turns still declare it", () => {
    const tool = mcpTool("lookup_choice_declared");
    const s = loadedThenDown("m-choice-declared", tool);
    const kept = [msg("user", [{ type: "text", text: "go on" }, declares(tool.name)])];
    const { choice } = toolChoice(s.deps, s.agent, 0, [], kept, "");
    expect(choice.dropped).toEqual([]);
  });
});

describe("toolChoice during a paused turn (results stored, not yet in history)", () => {
  it("keeps a tool the paused step loaded, not yet declared, even over the budget", () => {
    const tool = mcpTool("lookup_choice_paused");
    const s = session("m-choice-paused", [tool]);
    s.loaded.add([tool.name], "tool_search");
    const { choice } = toolChoice(s.deps, s.agent, 0, calledIn("other", "call_choice_2"), [], "");
    expect(choice).toEqual({ kept: [tool.name], dropped: [] });
  });

  it("keeps a declared tool that an open call's stored result references, even over the budget", () => {
    const tool = mcpTool("lookup_choice_ref");
    const open: ToolCallRow = {
      id: "call_choice_3",
      message_seq: 9,
      idx: 0,
      turn_id: "t",
      name: "select_tools",
      execution: "builtin",
      state: "resolved",
      result: JSON.stringify([{ type: "tool_reference", tool_name: tool.name }]),
      is_error: 0,
      answered_seq: null,
      announced: 1,
      cut: 0,
    };
    const s = session("m-choice-ref", [tool], [open]);
    s.loaded.add([tool.name], "select_tools");
    s.loaded.markDeclared([tool.name], () => declarationDigest(tool));
    const { choice } = toolChoice(s.deps, s.agent, 0, calledIn("other", "call_choice_4"), [], "");
    expect(choice).toEqual({ kept: [tool.name], dropped: [] });
  });
});
