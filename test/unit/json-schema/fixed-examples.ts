// One valid example of every fixed schema (src/http/fixed-schemas.ts), as rich as the schema allows:
// the starting points of the agreement test's mutations.
export const FIXED_EXAMPLES: Record<string, unknown> = {
  agentBody: {
    model: {
      provider: "anthropic",
      name: "claude-x",
      max_tokens: 1024,
      context_window: 200_000,
      effort: "high",
      capabilities: { message_level_tools: true, native_tool_search: false, prompt_cache: true, thinking: "adaptive" },
    },
    system: "You are helpful.",
    max_steps: 8,
    tools: [
      {
        name: "get_weather",
        description: "Weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } } },
        defer: true,
        search_hint: "forecast",
        requires_approval: false,
        execution: { type: "http", url: "https://tools.example/weather", timeout_ms: 5000 },
      },
      { name: "pick", input_schema: { type: "object" }, always_load: true, execution: { type: "client" } },
    ],
    mcp_servers: [
      { name: "docs", url: "https://mcp.example/mcp", headers: { authorization: "Bearer x" }, defer: false },
      { name: "gh", url: "https://gh.example/mcp", require_approval: { tools: ["create_issue"] } },
    ],
    disclosure: { tool_search: true, tool_info: true, select_tools: "auto" },
    compaction: { enabled: true, threshold: 0.8, keep_recent_turns: 2, tool_budget_tokens: 20_000 },
    webhook_secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    webhook_tenant: "acme",
    approval_ttl_s: 3600,
  },
  chatBody: {
    id: "chat-1",
    trigger: "submit-message",
    messageId: null,
    messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }],
  },
  corsBody: { allowed_origins: ["https://app.example", "https://admin.example"] },
  createKeyBody: { tenant: "acme", name: "ci key", rate_limit_per_min: 60 },
  createSessionBody: { agent: "support", id: "ses_1", metadata: { user: "u1" }, location_hint: "weur" },
  createTokenBody: { actions: ["send", "read"], ttl_s: 600 },
  messageBody: {
    content: [{ type: "text", text: "Hello" }],
    tool_results: [{ tool_use_id: "toolu_1", content: [{ type: "text", text: "42" }], is_error: false }],
    max_steps: 4,
    json_schema: { type: "object" },
  },
  runBody: {
    input: "Summarise the ticket",
    session_id: "ses_run",
    json_schema: true,
    callback_url: "https://hooks.example/done",
  },
  selectToolsInput: { names: ["get_weather", "send_email"] },
  toolApprovalsBody: {
    approvals: [{ approval_id: "apr_1", approved: false, reason: "not now", signature: "sig" }],
  },
  toolInfoInput: { name: "get_weather", include_schema: true },
  toolResultsBody: { results: [{ tool_use_id: "toolu_2", content: "done" }] },
  toolSearchInput: { query: "+github create issue", max_results: 5 },
};
