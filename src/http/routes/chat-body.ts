import type { Part } from "../../session/history/parts";
import type { SuppliedResult } from "../../session/history/store";
import { chatBody } from "../bodies";
import { ApiError } from "../errors";
import { check } from "../validate";

type ChatInput = { kind: "message"; content: Part[] } | { kind: "tool_results"; results: SuppliedResult[] };

interface UiPart {
  type?: unknown;
  text?: unknown;
  toolCallId?: unknown;
  state?: unknown;
  output?: unknown;
  errorText?: unknown;
}

/**
 * Reads an AI SDK `useChat` request body. The server owns history, so only
 * the newest message matters: a user message becomes the turn's content; an
 * assistant message whose client tools now carry outputs becomes tool results.
 */
export function chatBodyToInput(body: unknown): ChatInput {
  const messages = check<{ messages: unknown[] }>(chatBody, body).messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ApiError(400, "invalid_request", "messages: a non-empty array is required");
  }
  const last = messages[messages.length - 1] as { role?: unknown; parts?: unknown };
  const parts = Array.isArray(last?.parts) ? (last.parts as UiPart[]) : [];
  if (last?.role === "user") {
    const text = parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text as string);
    if (text.join("").length === 0) throw new ApiError(400, "invalid_request", "the newest user message has no text");
    return { kind: "message", content: text.map((t) => ({ type: "text", text: t })) };
  }
  if (last?.role === "assistant") {
    const results: SuppliedResult[] = parts
      .filter((p) => typeof p.toolCallId === "string" && (p.state === "output-available" || p.state === "output-error"))
      .map((p) => ({
        tool_use_id: p.toolCallId as string,
        content:
          p.state === "output-error"
            ? String(p.errorText ?? "error")
            : typeof p.output === "string"
              ? p.output
              : JSON.stringify(p.output ?? null),
        is_error: p.state === "output-error",
      }));
    if (results.length > 0) return { kind: "tool_results", results };
  }
  throw new ApiError(400, "invalid_request", "the newest message must be a user message or carry tool outputs");
}
