/**
 * Turns an AI SDK `useChat` request body into a turn's input: `chatBodyToInput` reads only the newest
 * message (a user message's text, or an assistant message's client tool outputs and approval responses), or, for
 * `regenerate()`, a retry of the newest turn, and throws a 400 ApiError for anything else, for a user message with
 * a part the server cannot read (`unsupported_part`) or for a message over the limits a /messages body is held to,
 * and a 409 for an edit of a user message (`edit_not_supported`).
 */
import type { Part } from "../../model/message";
import type { ApprovalAnswer } from "../../session/approval-store";
import type { SuppliedResult } from "../../session/history/close-open-calls";
import { ApiError } from "../errors";
import { check } from "../validate";

type ChatInput =
  | { kind: "regenerate" }
  | { kind: "message"; content: Part[] }
  | { kind: "answers"; results: SuppliedResult[]; approvals: ApprovalAnswer[] };

/**
 * The part types of a user message that carry the user's content and that the server cannot read: what it does with
 * each part type the `ai` package's UIMessagePart allows follows the AI SDK's own `convertToModelMessages`, which
 * gives a model a user message's `text` and `file` parts and drops the rest. `text` is read. A `file` is refused
 * (history holds text only, and a turn taken without it would answer a message the user did not send). Every other
 * part is ignored: `data-*` parts reach a model only through a server's own `convertDataPart` (Switchboard has
 * none), and sources, reasoning, step boundaries, tool and provider-specific parts are not a user's words.
 */
const UNREADABLE_USER_PARTS: ReadonlySet<string> = new Set(["file"]);

interface UiPart {
  type?: unknown;
  text?: unknown;
  toolCallId?: unknown;
  state?: unknown;
  output?: unknown;
  errorText?: unknown;
  input?: unknown;
  providerExecuted?: unknown;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown; signature?: unknown };
}

/** `approval-responded` tool parts (useChat's addToolApprovalResponse): id, answer, and what the client was shown. */
function approvalAnswers(parts: UiPart[]): ApprovalAnswer[] {
  return parts
    .filter((p) => typeof p.toolCallId === "string" && p.state === "approval-responded")
    .map((p) => {
      const a = p.approval ?? {};
      if (typeof a.id !== "string" || typeof a.approved !== "boolean") {
        throw new ApiError(
          400,
          "invalid_request",
          "an approval-responded part needs approval.id and approval.approved",
        );
      }
      if (a.reason !== undefined && (typeof a.reason !== "string" || a.reason.length > 2000)) {
        throw new ApiError(400, "invalid_request", "approval.reason must be a string of at most 2000 characters");
      }
      return {
        approval_id: a.id,
        approved: a.approved,
        ...(typeof a.reason === "string" ? { reason: a.reason } : {}),
        ...(typeof a.signature === "string" ? { signature: a.signature } : {}),
        tool_call_id: p.toolCallId as string,
        input: p.input ?? null,
      };
    });
}

/**
 * Holds what the newest message gives to the limits of a /messages body, by its own schema (`messageBody`): the
 * chatBody schema cannot, as it also covers the history before it, which is not read.
 */
function withinMessageLimits(what: string, body: { content: Part[]; tool_results?: SuppliedResult[] }): void {
  try {
    check("messageBody", body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    throw new ApiError(400, "invalid_request", `${what}, checked as a /messages body: ${e.message}`);
  }
}

/**
 * Reads an AI SDK `useChat` request body (the route has checked it against
 * `chatBody` with `readBody`, as every route reads its body). The server owns history, so only
 * the newest message matters: a user message becomes the turn's content; an
 * assistant message whose client tools now carry outputs becomes tool results.
 * `regenerate()` (trigger `regenerate-message`) sends the history up to the user message it answers again:
 * that message is stored already, so the body is a retry, whatever its messages.
 * A user message posted with `messageId` is an edit (useChat `sendMessage({ text, messageId })` cuts the client's
 * history back to that message and replaces it): the server never rewinds history, so it is refused rather than
 * appended after the exchange it was meant to replace. useChat sets `messageId` on a submit only for an edit, for
 * answers on an assistant message and for `sendMessage()` with no message (the newest message's id, as an edit).
 */
export function chatBodyToInput(body: { messages: unknown[]; trigger?: string; messageId?: string | null }): ChatInput {
  if (body.trigger === "regenerate-message") return { kind: "regenerate" };
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ApiError(400, "invalid_request", "messages: a non-empty array is required");
  }
  const last = messages[messages.length - 1] as { role?: unknown; parts?: unknown };
  const parts = Array.isArray(last?.parts) ? (last.parts as UiPart[]) : [];
  if (last?.role === "user") {
    if (typeof body.messageId === "string" && body.messageId !== "") {
      throw new ApiError(
        409,
        "edit_not_supported",
        `editing a message is not supported: messageId ${JSON.stringify(body.messageId)} asks to replace a user ` +
          "message, and the server keeps the history and never rewinds it; send a new message instead",
      );
    }
    const at = parts.findIndex((p) => typeof p.type === "string" && UNREADABLE_USER_PARTS.has(p.type));
    if (at !== -1) {
      const type = String(parts[at]?.type);
      throw new ApiError(
        400,
        "unsupported_part",
        `${type} parts are not supported: the server reads a user message's text only (parts.${at} of the ` +
          `newest message is a ${type} part)`,
      );
    }
    const text = parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text as string);
    // Whitespace-only text counts as none (as on /messages): providers refuse it or drop the message.
    if (text.join("").trim() === "") throw new ApiError(400, "invalid_request", "the newest user message has no text");
    const content: Part[] = text.map((t) => ({ type: "text", text: t }));
    withinMessageLimits("the newest user message's text parts", { content });
    return { kind: "message", content };
  }
  if (last?.role === "assistant") {
    // A part marked providerExecuted is a call the session ran or answered itself (a server tool's, or a client
    // tool's call it refused or dropped, as one cut by max_tokens): its outcome was never the client's to give.
    const results: SuppliedResult[] = parts
      .filter(
        (p) =>
          typeof p.toolCallId === "string" &&
          p.providerExecuted !== true &&
          (p.state === "output-available" || p.state === "output-error"),
      )
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
    // Each output is held to a tool result's limits. Not their count: the message is the whole turn, so it repeats
    // the outputs of every step before (the session takes only the pending ones).
    for (const r of results)
      withinMessageLimits(`the output of tool call ${r.tool_use_id}`, { content: [], tool_results: [r] });
    const approvals = approvalAnswers(parts);
    if (results.length > 0 || approvals.length > 0) return { kind: "answers", results, approvals };
  }
  throw new ApiError(
    400,
    "invalid_request",
    "the newest message must be a user message or carry tool outputs or approval responses",
  );
}
