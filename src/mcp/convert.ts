/**
 * Conversions between MCP and Switchboard tools: which of a server's tools are accepted (`acceptTools`) and
 * how they register (`mcp__server__tool` names, deferred by default), and how a tools/call result or failure
 * becomes tool_result content for the model (read leniently, capped at MAX_MCP_OUTPUT_CHARS, saying when it cut).
 * No I/O.
 */
import {
  type CallToolResult,
  ContentBlockSchema,
  ErrorCode,
  McpError,
  ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../agents/types";
import { compileLenient } from "../json-schema/index";
import type { JsonObject } from "../model/json";
import type { ToolResultContent } from "../model/message";
import { NAME_MAX_LENGTH } from "../model/name-form";
import { headChars, jsonBytes, utf8Bytes } from "../storage/fit";
import type { ToolOutcome } from "../tools/http-tool";
import type { RegisteredTool } from "../tools/types";
import { MAX_LIST_BYTES, MAX_MCP_OUTPUT_CHARS, MAX_MCP_RESPONSE_BYTES, MAX_OUTPUT_SCHEMA_BYTES } from "./limits";

/** What the session keeps of one MCP tool (the cache stores this, not the server's whole answer). */
export interface McpToolInfo {
  name: string;
  description: string;
  input_schema: JsonObject;
  always_load: boolean;
  /**
   * The output schema the tool declares: a call's structured content is checked against it. Kept with the
   * cached list, so an instance that has not listed the server itself (after a restart) still checks.
   */
  output_schema?: JsonObject;
}

const MCP_PREFIX = "mcp__";

export function qualifiedName(server: string, tool: string): string {
  return `${MCP_PREFIX}${server}__${tool}`;
}

/**
 * Keeps the tools a provider can be sent: an entry that is an MCP tool, a valid, short-enough qualified name
 * and an input schema that compiles (leniently: MCP servers are often sloppy), kept as the compiler normalised it
 * (older drafts' forms rewritten, unknown keywords dropped). The rest are reported as skipped, not sent broken;
 * one malformed entry costs that tool, not the server's list.
 */
export function acceptTools(server: string, listed: unknown[]): { tools: McpToolInfo[]; skipped: string[] } {
  const out: McpToolInfo[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  let bytes = 2;
  for (const [i, entry] of listed.entries()) {
    const parsed = ToolSchema.safeParse(entry);
    if (!parsed.success) {
      const named = (entry as { name?: unknown } | null)?.name;
      const issue = parsed.error.issues[0];
      const why = issue ? `${issue.path.join(".") || "tool"}: ${issue.message}` : "not a tool";
      skipped.push(`${typeof named === "string" ? named : `#${i}`} (invalid: ${headChars(why, 200)})`);
      continue;
    }
    const t = parsed.data;
    const name = qualifiedName(server, t.name);
    if (!/^[a-zA-Z0-9_-]+$/.test(t.name) || name.length > NAME_MAX_LENGTH || seen.has(t.name)) {
      skipped.push(`${t.name} (name)`);
      continue;
    }
    const { $schema: _dialect, ...schema } = t.inputSchema as JsonObject;
    const compiled = compileLenient(schema, { maxBytes: 64 * 1024 });
    if (!compiled.ok) {
      skipped.push(`${t.name} (schema: ${headChars(compiled.error, 200)})`);
      continue;
    }
    const info: McpToolInfo = {
      name: t.name,
      description: t.description ?? t.title ?? t.annotations?.title ?? "",
      // The compiler's normalised copy, not the server's text: providers validate tool schemas as 2020-12 and
      // refuse a request over draft-04 boolean bounds or a draft-07 tuple, and a deferred tool is in every request.
      input_schema: compiled.schema.normalized as JsonObject,
      always_load: t._meta?.["anthropic/alwaysLoad"] === true,
    };
    // The output schema only checks results: one too large to keep costs that check, never the tool.
    let size = jsonBytes(info) + 1;
    const output = t.outputSchema ? jsonBytes(t.outputSchema) : 0;
    if (t.outputSchema && output <= MAX_OUTPUT_SCHEMA_BYTES && bytes + size + output + 17 <= MAX_LIST_BYTES) {
      info.output_schema = t.outputSchema as JsonObject;
      size = jsonBytes(info) + 1;
    }
    // The list is cached as one SQLite row (mcp-catalog.ts): past the budget a tool is skipped, not the server lost.
    if (bytes + size > MAX_LIST_BYTES) {
      skipped.push(`${t.name} (the list is over ${MAX_LIST_BYTES} bytes)`);
      continue;
    }
    bytes += size;
    seen.add(t.name);
    out.push(info);
  }
  return { tools: out, skipped };
}

/** MCP tools are deferred unless the server is configured `defer: false` or the tool asks to always load. */
export function registeredTool(server: McpServerConfig, info: McpToolInfo): RegisteredTool {
  return {
    name: qualifiedName(server.name, info.name),
    description: info.description,
    input_schema: info.input_schema,
    source: "mcp",
    deferred: server.defer !== false && !info.always_load,
    // The server name is a search hint, so "github" finds every tool of the github server.
    search_hint: server.name,
    mcp: { server: server.name, tool: info.name },
  };
}

const UNSUPPORTED_BLOCK = "[unsupported content block]";

/**
 * A tools/call answer read leniently: a block the MCP schema rejects (an unknown type, an image without
 * mimeType) becomes the unsupported-block placeholder instead of failing the whole answer, so the valid
 * blocks still reach the model.
 */
export function lenientResult(raw: Record<string, unknown>): CallToolResult {
  const blocks: unknown[] = Array.isArray(raw.content) ? raw.content : [];
  const structured = raw.structuredContent;
  return {
    content: blocks.map((b) => {
      const parsed = ContentBlockSchema.safeParse(b);
      return parsed.success ? parsed.data : { type: "text" as const, text: UNSUPPORTED_BLOCK };
    }),
    ...(structured !== null && typeof structured === "object" && !Array.isArray(structured)
      ? { structuredContent: structured as Record<string, unknown> }
      : {}),
    ...(raw.isError === true ? { isError: true } : {}),
  };
}

function blockText(b: CallToolResult["content"][number]): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "image":
    case "audio":
      return `[${b.type}: ${b.mimeType}, ${Math.floor((b.data.length * 3) / 4)} bytes, not shown]`;
    case "resource_link":
      return `[resource: ${b.uri}${b.name ? ` (${b.name})` : ""}]`;
    case "resource":
      return "text" in b.resource && typeof b.resource.text === "string"
        ? b.resource.text
        : `[resource: ${b.resource.uri}, binary, not shown]`;
    default:
      return UNSUPPORTED_BLOCK;
  }
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/**
 * Caps one result: the model is told how large the output really was, and `cut` says the content is no longer what
 * the tool returned (the call's result is then stored as cut, so no `$tool` reference passes it).
 */
export function capOutput(
  content: ToolResultContent,
  max = MAX_MCP_OUTPUT_CHARS,
): { content: ToolResultContent; cut: boolean } {
  const text = typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  if (text.length <= max) return { content, cut: false };
  const bytes = utf8Bytes(text);
  return {
    content: `${headChars(text, max)}\n[truncated: the MCP tool returned ${text.length} characters (${bytes} bytes); the first ${max} are kept]`,
    cut: true,
  };
}

/**
 * A tools/call result as tool_result content. Structured content travels as JSON text, alone when the
 * text blocks only repeat it (so `$tool` references can address its fields), else after the text.
 * `schemaError` (the result does not match the tool's declared output schema) is noted after it all.
 */
export function resultContent(
  res: CallToolResult,
  schemaError: string | null = null,
): Omit<ToolOutcome, "ms" | "status"> {
  const texts = (res.content ?? []).map(blockText);
  const structured = res.structuredContent === undefined ? null : JSON.stringify(res.structuredContent);
  const parts = structured === null ? texts : [...texts.filter((t) => !sameJson(t, structured)), structured];
  if (schemaError !== null) parts.push(`[note: ${schemaError}; the result is passed on as the server sent it]`);
  let content: ToolResultContent;
  // An error with only blank text says nothing either (and Anthropic refuses an error result with empty content).
  if (res.isError && parts.every((t) => t.trim() === "")) content = "the MCP tool reported an error without a message";
  else if (parts.length === 0) content = "";
  else if (parts.length === 1) content = parts[0] as string;
  else content = parts.map((text) => ({ type: "text" as const, text }));
  const capped = capOutput(content);
  return { content: capped.content, is_error: res.isError === true, ...(capped.cut ? { cut: true } : {}) };
}

type CallFailure = "timeout" | "refused" | "unreachable" | "too_large" | "http_status";

/** The JSON-RPC error code of an answer over MAX_MCP_RESPONSE_BYTES (transport-fetch.ts answers the call with it). */
export const ANSWER_TOO_LARGE = -32099;

/**
 * The JSON-RPC error code of an SSE answer the server ended, or that broke off, before it answered the call (a crash,
 * a redeploy, a proxy's idle cut; transport-fetch.ts answers the call with it). The tool may have run.
 */
export const ANSWER_DROPPED = -32098;

/**
 * A request failed because its link closed under it (connection.ts). The SDK fails such a request with
 * ConnectionClosed (-32000), a code servers also answer with for an error of their own, so the connection tells
 * the two apart by where the error came from and throws this for the first.
 */
export class LinkClosed extends Error {
  override name = "LinkClosed";
}

/** Classifies a failed call for the message and for the server's status (only `unreachable` marks it down). */
export function failureKind(e: unknown, timedOut: boolean): CallFailure {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === ANSWER_TOO_LARGE) return "too_large";
  // The link to the server failed under the call, as when the request could not be sent: it is probed again.
  if (code === ANSWER_DROPPED) return "unreachable";
  if (timedOut) return "timeout";
  if (code === ErrorCode.RequestTimeout) return "timeout";
  // An HTTP error status (the transport's StreamableHTTPError carries it as `code`): the server answered, but
  // not this call; its next listing may well work, so it is not reported disconnected.
  if (typeof code === "number" && code >= 400 && code <= 599) return "http_status";
  // A JSON-RPC error answer means the server answered: it is reachable, it refused this call. Any code: 0 is the
  // Python SDK's answer to a handler that raised, -32000 a server's own error (a closed link is LinkClosed).
  if (e instanceof McpError || (typeof code === "number" && code < 0)) return "refused";
  return "unreachable";
}

export function failureOutcome(
  kind: CallFailure,
  e: unknown,
  ctx: { name: string; server: string; loaded: boolean; timeoutMs: number; ms: number },
): ToolOutcome {
  const why = headChars(e instanceof Error ? e.message : String(e), 500);
  let content: string;
  if (kind === "timeout")
    content = `MCP tool "${ctx.name}" timed out after ${ctx.timeoutMs} ms (server "${ctx.server}").`;
  else if (kind === "refused") content = `MCP server "${ctx.server}" refused the call to "${ctx.name}": ${why}`;
  else if (kind === "http_status") {
    const status = (e as { code?: unknown } | null)?.code;
    const next = status === 401 || status === 403 ? "it refused the credentials it was sent" : "try again later";
    content = `MCP server "${ctx.server}" answered HTTP ${status} to the call to "${ctx.name}" (${why}); ${next}.`;
  } else if (kind === "too_large")
    content = `MCP tool "${ctx.name}" answered with more than ${MAX_MCP_RESPONSE_BYTES} bytes (server "${ctx.server}"); the answer was not read.`;
  else content = disconnectedMessage(ctx.name, ctx.server, ctx.loaded, why);
  return { content, is_error: true, ms: ctx.ms };
}

/** The answer for a tool the model knows (loaded or core) whose server cannot be reached. */
export function disconnectedMessage(name: string, server: string, loaded: boolean, why: string | null): string {
  const detail = why ? ` (${why})` : "";
  return loaded
    ? `Tool "${name}" is loaded but its server "${server}" is disconnected${detail}. It cannot be called until the server is reachable again; a notice will say when its tools are back.`
    : `Tool "${name}" cannot be called: its MCP server "${server}" is unreachable${detail}.`;
}
