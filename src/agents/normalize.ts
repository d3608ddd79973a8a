/**
 * Validation of an agent PUT body into the stored AgentConfig. `normalizeAgent` checks the name, tool names
 * (no built-in or `mcp__` names, no duplicates), object-rooted input schemas, outbound URLs, MCP servers' headers,
 * the provider's least output limit, that only `openai` names its output-limit field (`model.max_tokens_field`) and
 * that the system prompt alone fits the context window, then fills every default; it throws ApiError (400/422) on
 * the first problem and does no I/O. `AGENT_NAME` is the name pattern.
 */
import { ApiError } from "../http/errors";
import { check } from "../http/validate";
import { compileDeclared } from "../json-schema/compile";
import type { JsonObject } from "../model/json";
import { NAME_FORM } from "../model/name-form";
import { adaptiveByDefault, thinkingMode } from "../providers/anthropic-thinking";
import {
  contextWindow,
  DEFAULT_CONTEXT_WINDOW,
  type Effort,
  type MaxTokensField,
  RESPONSES_MIN_OUTPUT_TOKENS,
} from "../providers/types";
import { MIN_SECRET_BYTES, secretKey, usableSecret } from "../runs/signature";
import { textTokens } from "../session/compaction/estimate";
import { PLAIN_TOOLS_MAX, projectionFor } from "../tools/disclosure";
import { checkOutboundUrl } from "../tools/outbound";
import { disclosureBuiltins, LOAD_ROOM, ToolRegistry } from "../tools/registry";
import {
  type AgentConfig,
  type AgentTool,
  BUILTIN_TOOL_NAMES,
  type CompactionConfig,
  DEFAULT_COMPACTION,
  DEFAULT_MAX_STEPS,
} from "./types";

interface AgentBody {
  model: {
    provider: AgentConfig["model"]["provider"];
    name: string;
    max_tokens?: number;
    max_tokens_field?: MaxTokensField;
    context_window?: number;
    effort?: Effort;
    capabilities?: Partial<AgentConfig["model"]["capabilities"]>;
  };
  system?: string;
  max_steps?: number;
  tools?: AgentTool[];
  mcp_servers?: AgentConfig["mcp_servers"];
  disclosure?: Partial<AgentConfig["disclosure"]>;
  compaction?: Partial<CompactionConfig>;
  webhook_secrets?: string[];
  webhook_tenant?: string;
  approval_ttl_s?: number;
}

/**
 * Agent URLs get the same outbound policy as the calls made to them, checked
 * when the agent is saved, so a bad URL is a 400 now rather than an error
 * result in some later turn. (Calls are checked again: the flag may change.)
 */
function assertUrl(url: string, where: string, allowPrivate: boolean): void {
  const problem = checkOutboundUrl(url, allowPrivate);
  if (problem) throw new ApiError(400, "invalid_request", `${where}: ${problem}`);
}

/**
 * A tool schema is checked when the agent is saved, strictly (typos such as "requird" refused, every `$ref`
 * resolving): a schema the call-time validator would quietly read differently, or not compile at all, is a
 * 422 now rather than a tool that accepts anything or refuses every call (and a schema the provider may refuse).
 */
function assertObjectSchema(schema: JsonObject, where: string): void {
  // One check for both, so a json_schema and a tool agree on what is accepted (the object root included).
  const compiled = compileDeclared(schema);
  if (!compiled.ok) throw new ApiError(422, "invalid_schema", `${where}: ${compiled.error}`);
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What no header value may hold: CR, LF, NUL, or a character past U+00FF (not a byte). */
const HEADER_VALUE_BAD = /[\r\n\0\u0100-\uffff]/;

/**
 * Headers sent on every request to a server are checked when the agent is saved: a name or value fetch refuses
 * would leave the server disconnected on every turn. A value is never echoed (it is usually a credential).
 */
function assertHeaders(headers: Record<string, string>, where: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      throw new ApiError(400, "invalid_request", `${where}: ${JSON.stringify(name)} is not a valid header name`);
    }
    if (HEADER_VALUE_BAD.test(value)) {
      throw new ApiError(
        400,
        "invalid_request",
        `${where}.${name}: a header value must not contain CR, LF, NUL or characters past U+00FF`,
      );
    }
  }
}

/** Validates an agent body and fills defaults; throws ApiError on the first problem. */
interface NormalizeOptions {
  /** SWITCHBOARD_ALLOW_PRIVATE_URLS: loopback/private http(s) URLs allowed. Default false (production policy). */
  allowPrivate?: boolean;
}

export function normalizeAgent(name: string, raw: unknown, opts: NormalizeOptions = {}): AgentConfig {
  const allowPrivate = opts.allowPrivate ?? false;
  if (!NAME_FORM.test(name)) throw new ApiError(400, "invalid_request", `agent name must match ${NAME_FORM.source}`);
  const body = check<AgentBody>("agentBody", raw);
  const tools = body.tools ?? [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    const where = `tools.${i}`;
    if ((BUILTIN_TOOL_NAMES as readonly string[]).includes(tool.name)) {
      throw new ApiError(
        400,
        "reserved_tool_name",
        `${where}.name: "${tool.name}" is a built-in tool name and cannot be used`,
      );
    }
    if (tool.name.startsWith("mcp__")) {
      throw new ApiError(400, "reserved_tool_name", `${where}.name: the mcp__ prefix is reserved for MCP server tools`);
    }
    if (seen.has(tool.name))
      throw new ApiError(400, "duplicate_tool", `${where}.name: duplicate tool name "${tool.name}"`);
    seen.add(tool.name);
    assertObjectSchema(tool.input_schema, `${where}.input_schema`);
    if (tool.discovery_schema) assertObjectSchema(tool.discovery_schema, `${where}.discovery_schema`);
    if (tool.execution.type === "http") assertUrl(tool.execution.url, `${where}.execution.url`, allowPrivate);
    if (tool.requires_approval && tool.execution.type !== "http") {
      throw new ApiError(
        400,
        "invalid_request",
        `${where}.requires_approval: only http tools need approval (a client tool runs in the client, which can ask)`,
      );
    }
  });
  const servers = body.mcp_servers ?? [];
  const serverNames = new Set<string>();
  servers.forEach((s, i) => {
    if (serverNames.has(s.name)) throw new ApiError(400, "invalid_request", `mcp_servers.${i}.name: duplicate server`);
    // Tool names are mcp__<server>__<tool>: a "__" in the server's name could make two servers' tools one name.
    if (s.name.includes("__")) {
      throw new ApiError(
        400,
        "invalid_request",
        `mcp_servers.${i}.name: must not contain "__" (it separates tool names)`,
      );
    }
    serverNames.add(s.name);
    assertUrl(s.url, `mcp_servers.${i}.url`, allowPrivate);
    assertHeaders(s.headers ?? {}, `mcp_servers.${i}.headers`);
  });
  (body.webhook_secrets ?? []).forEach((secret, i) => {
    // The schema checks only the length; a secret the Standard Webhooks library cannot decode never verifies a
    // request nor signs a callback.
    if (!usableSecret(secret)) {
      throw new ApiError(
        400,
        "invalid_request",
        `webhook_secrets.${i}: not a Standard Webhooks secret (base64, optionally prefixed "whsec_")`,
      );
    }
    // A short key is guessable, and then anyone can sign runs; the message never echoes the secret.
    if ((secretKey(secret)?.length ?? 0) < MIN_SECRET_BYTES) {
      throw new ApiError(
        400,
        "invalid_request",
        `webhook_secrets.${i}: must decode to at least ${MIN_SECRET_BYTES} bytes (Standard Webhooks recommends 24 to 64 random bytes)`,
      );
    }
  });
  // The schema's minimum is 1 for every provider; the Responses API refuses max_output_tokens below 16, so such an
  // agent would fail every turn.
  const maxTokens = body.model.max_tokens;
  if (
    body.model.provider === "openai-responses" &&
    maxTokens !== undefined &&
    maxTokens < RESPONSES_MIN_OUTPUT_TOKENS
  ) {
    throw new ApiError(
      400,
      "invalid_request",
      `model.max_tokens: must be at least ${RESPONSES_MIN_OUTPUT_TOKENS} for openai-responses, the Responses API's minimum max_output_tokens (got ${maxTokens})`,
    );
  }
  // Only Chat Completions has two names for the output limit; elsewhere the field would be stored and do nothing.
  const field = body.model.max_tokens_field;
  if (field !== undefined && body.model.provider !== "openai") {
    throw new ApiError(
      400,
      "invalid_request",
      `model.max_tokens_field: only for provider openai (Chat Completions); ${body.model.provider} has one name for the output limit`,
    );
  }
  assertThinking(body.model);
  const caps = body.model.capabilities ?? {};
  const config: AgentConfig = {
    name,
    model: {
      provider: body.model.provider,
      name: body.model.name,
      ...(body.model.max_tokens ? { max_tokens: body.model.max_tokens } : {}),
      ...(field ? { max_tokens_field: field } : {}),
      ...(body.model.effort ? { effort: body.model.effort } : {}),
      context_window: body.model.context_window ?? DEFAULT_CONTEXT_WINDOW[body.model.provider],
      capabilities: {
        message_level_tools: caps.message_level_tools ?? false,
        // Anthropic's tool search (defer_loading, tool_reference): on unless the model or its endpoint lacks it.
        native_tool_search: caps.native_tool_search ?? body.model.provider === "anthropic",
        prompt_cache: caps.prompt_cache ?? body.model.provider === "anthropic",
        thinking: caps.thinking ?? false,
        native_compaction: caps.native_compaction ?? false,
      },
    },
    system: body.system ?? "",
    max_steps: body.max_steps ?? DEFAULT_MAX_STEPS,
    tools: tools.map((t) => ({ ...t, description: t.description ?? "" })),
    mcp_servers: servers,
    disclosure: {
      tool_search: body.disclosure?.tool_search ?? true,
      tool_info: body.disclosure?.tool_info ?? true,
      select_tools: body.disclosure?.select_tools ?? "auto",
    },
    compaction: { ...DEFAULT_COMPACTION, ...body.compaction },
    webhook_secrets: body.webhook_secrets ?? [],
    ...(body.webhook_tenant ? { webhook_tenant: body.webhook_tenant } : {}),
    ...(body.approval_ttl_s ? { approval_ttl_s: body.approval_ttl_s } : {}),
  };
  assertToolsFit(config);
  assertSystemFits(config);
  return config;
}

/**
 * A system prompt that alone is more than the context window (estimated as the context budget estimates a
 * request, `textTokens`) leaves no room for any request of the agent: every turn would fail, and no compaction
 * shrinks it.
 */
function assertSystemFits(config: AgentConfig): void {
  const tokens = textTokens(config.system);
  const window = contextWindow(config.model);
  if (tokens <= window) return;
  throw new ApiError(
    400,
    "invalid_request",
    `system: about ${tokens} tokens (estimated), more than model.context_window (${window} tokens), so no request of this agent could be sent; shorten the system prompt or give the model a larger context window`,
  );
}

/**
 * A thinking mode and an effort are Anthropic's; a budget (`"enabled"`) is refused by the models that take only
 * adaptive thinking, and an effort is sent with adaptive thinking only: any of these would be refused, or unused, at
 * every turn.
 */
function assertThinking(model: AgentBody["model"]): void {
  const thinking = model.capabilities?.thinking ?? false;
  if (model.provider !== "anthropic") {
    if (typeof thinking === "string") {
      throw new ApiError(
        400,
        "invalid_request",
        `model.capabilities.thinking: "${thinking}" is an Anthropic thinking mode; ${model.provider} takes true or false`,
      );
    }
    if (model.effort) {
      throw new ApiError(
        400,
        "invalid_request",
        `model.effort: an Anthropic setting (output_config.effort); ${model.provider} takes none`,
      );
    }
    return;
  }
  if (thinking === "enabled" && adaptiveByDefault(model.name)) {
    throw new ApiError(
      400,
      "invalid_request",
      `model.capabilities.thinking: ${model.name} takes only adaptive thinking, not a budget ("enabled"); use "adaptive" or true`,
    );
  }
  const mode = thinkingMode(model.name, thinking);
  if (model.effort && mode !== "adaptive") {
    throw new ApiError(
      400,
      "invalid_request",
      `model.effort: sent only with adaptive thinking; set model.capabilities.thinking to "adaptive"${mode === "enabled" ? ` (true means a thinking budget on ${model.name})` : ""}`,
    );
  }
}

/**
 * Outside Anthropic's tool search every tool sent at once goes in tools[], which OpenAI caps at 128 functions:
 * the tools always sent (core tools and the built-ins) must leave room for one (a turn's structured_output), or
 * every request of the agent would be refused. Once anything is deferred they must also leave `LOAD_ROOM` slots
 * to load it into (session-tools.ts loadRoom): a deferred tool with no room is found by tool_search but every
 * select_tools answers "not loaded".
 */
function assertToolsFit(config: AgentConfig): void {
  if (projectionFor(config.model) === "anthropic") return;
  const reg = new ToolRegistry(config);
  // MCP tools are deferred by default (and past the cap, session-tools.ts), which brings in the built-ins.
  const anyDeferred = reg.hasDeferred() || (reg.searchEnabled && config.mcp_servers.length > 0);
  const always = reg.core().length + disclosureBuiltins(config, anyDeferred).length;
  const max = PLAIN_TOOLS_MAX - 1 - (anyDeferred ? LOAD_ROOM : 0);
  if (always > max) {
    const kept = anyDeferred
      ? `one is kept for structured_output and ${LOAD_ROOM} to load deferred tools into`
      : "one is kept for structured_output";
    throw new ApiError(
      400,
      "invalid_request",
      `tools: ${always} tools would be sent with every request, and this model takes at most ${max} (${kept}); mark some "defer": true`,
    );
  }
}
