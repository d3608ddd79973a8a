// The response schemas of the OpenAPI document (src/http/responses.ts) declare every field the answers carry: each
// answer here is checked strictly (`strict`), so a key the document leaves out fails the test, where the ordinary
// check takes it (the document's objects stay open to clients).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Part } from "../../../src/model/message";
import { ADMIN, api, clientTool, sessionStores, sessionStub, setup, uid } from "../helpers";
import { newSecret } from "../runs-helpers";

/** A strictly checked GET (the check throws on an undeclared key), answering its status. */
async function strictGet(path: string, key: string): Promise<number> {
  const res = await api(path, { key, strict: true, headers: { accept: "application/json" } });
  await res.body?.cancel();
  return res.status;
}

describe("answers checked strictly against the document", () => {
  it("GET /v1/agents/{agent} of an agent with every setting declares each of its fields", async () => {
    const agent = uid("agent-every");
    const put = await api(`/v1/agents/${agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: {
          provider: "anthropic",
          name: uid("mock-anthropic"),
          max_tokens: 1024,
          context_window: 200_000,
          capabilities: { prompt_cache: true, native_tool_search: true },
        },
        system: "Every setting.",
        max_steps: 8,
        tools: [
          {
            name: "lookup",
            description: "Looks it up",
            input_schema: { type: "object", properties: { q: { type: "string" } } },
            execution: { type: "http", url: "https://tools.example.com/lookup", timeout_ms: 5000 },
            requires_approval: true,
          },
          { ...clientTool("ask_user"), defer: true, search_hint: "ask the person" },
        ],
        mcp_servers: [
          {
            name: "m",
            url: "https://mcp.example.com/mcp",
            headers: { authorization: "Bearer x" },
            defer: true,
            require_approval: { tools: ["write"] },
          },
        ],
        disclosure: { tool_search: true, tool_info: false, select_tools: "auto" },
        compaction: { enabled: true, threshold: 0.7, keep_recent_turns: 3, tool_budget_tokens: 2000 },
        webhook_secrets: [newSecret()],
        webhook_tenant: uid("t"),
        approval_ttl_s: 600,
      },
    });
    expect(put.status).toBe(201);
    expect(await strictGet(`/v1/agents/${agent}`, ADMIN)).toBe(200);
  });

  it("GET /v1/keys declares each field of a key, its rate limit too", async () => {
    const created = await api("/v1/keys", {
      method: "POST",
      key: ADMIN,
      json: { tenant: uid("t"), name: "limited", rate_limit_per_min: 30 },
    });
    expect(created.status).toBe(201);
    expect(await strictGet("/v1/keys", ADMIN)).toBe(200);
  });

  it("a history page declares each field of thinking, notice and tool_declarations parts", async () => {
    const s = await setup();
    const notices: Part[] = [
      { type: "notice", kind: "tools_baseline", text: "", tools: ["lookup"], listing: "- lookup: looks it up" },
      { type: "notice", kind: "tools_changed", text: "Tools changed.", added: ["ask_user"], removed: ["lookup"] },
    ];
    const thinking: Part[] = [
      { type: "thinking", thinking: "Let me see.", signature: "EqSignature" },
      { type: "thinking", thinking: "", redacted: "EqRedacted" },
      { type: "text", text: "Seen." },
    ];
    const declared = { name: "lookup", description: "Looks it up", input_schema: { type: "object" } };
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const { history } = sessionStores(state.storage);
      history.closeOpenCalls({
        turnId: "turn_strict_parts",
        reason: "a new message",
        declarations: [{ ...declared, defer_loading: true }],
        extra: [...notices, { type: "text", text: "hello" }],
        origin: "client",
      });
      history.appendAssistantParts("turn_strict_parts", null, thinking, () => "unknown");
    });
    expect(await strictGet(`/v1/sessions/${s.session}/messages`, s.key)).toBe(200);
  });
});
