// What the app posts to POST /v1/sessions/{id}/chat. The server owns the history and reads only the newest
// message (src/http/routes/chat-body.ts), but its body cap counts every byte sent: useChat's default body, the
// whole conversation, would pass that cap once a tab's live tool outputs add up, and every send after it would fail.
import {
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type PrepareSendMessagesRequest,
  type UIMessage,
} from "ai";

/**
 * Whether the server reads `part` of a newest message of `role`: a user message's text, and its file parts, which
 * the server refuses (400 unsupported_part: it reads text alone) where, left out here, they would be lost without a
 * word (this page attaches none); an assistant message's approval answers (with the input shown, which their
 * signature covers) and client tools' outputs. Not the outputs of calls marked providerExecuted (the server ran or
 * answered them itself, and they may be megabytes: an answer after a tool-heavy step would pass the body cap), nor
 * the message's text, reasoning or open calls.
 */
function readByServer(role: UIMessage["role"], part: UIMessage["parts"][number]): boolean {
  if (role === "user") return part.type === "text" || part.type === "file";
  if (!isToolUIPart(part)) return false;
  if (part.state === "approval-responded") return true;
  return !part.providerExecuted && (part.state === "output-available" || part.state === "output-error");
}

/**
 * The chatBody fields the server reads (the transport's extra body, the chat id, the trigger and message id) with
 * the newest message alone, and of it only the parts the server reads: a new user message, or the assistant message
 * carrying approval answers or client tool outputs.
 */
export const newestMessageOnly: PrepareSendMessagesRequest<UIMessage> = ({
  body,
  id,
  messages,
  trigger,
  messageId,
}) => ({
  body: {
    ...body,
    id,
    messages: messages
      .slice(-1)
      .map(({ id, role, parts }) => ({ id, role, parts: parts.filter((p) => readByServer(role, p)) })),
    trigger,
    messageId,
  },
});

/**
 * useChat's `sendAutomaticallyWhen`: every approval of the newest step answered, as the AI SDK's
 * `lastAssistantMessageIsCompleteWithApprovalResponses` says, except that a client tool's call waiting for an app
 * (a dynamic-tool part in `input-available` without `providerExecuted`: this page runs no client tool) does not hold
 * the answers back. The server takes the answers while the app's result is still due, and resumes the turn once it
 * is in (it may already be: the page only knows the pause as it read it).
 */
export function approvalsAnswered({ messages }: { messages: UIMessage[] }): boolean {
  const last = messages.at(-1);
  if (!last) return false;
  const parts = last.parts.filter(
    (p) => !(p.type === "dynamic-tool" && p.state === "input-available" && !p.providerExecuted),
  );
  return lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [{ ...last, parts }] });
}

/** The ids of the answered approvals of the newest message. */
function answeredIds(messages: UIMessage[]): string[] {
  const ids: string[] = [];
  for (const p of messages.at(-1)?.parts ?? []) {
    if (!("state" in p) || p.state !== "approval-responded" || !("approval" in p)) continue;
    const id = (p.approval as { id?: unknown } | undefined)?.id;
    if (typeof id === "string") ids.push(id);
  }
  return ids;
}

/**
 * useChat's `sendAutomaticallyWhen` for this page: `approvalsAnswered`, once per answer, and only when one of the
 * fresh answers is the page's own (`gave`). useChat asks again after every request that did not fail, and a step
 * whose client call still waits for an app keeps `approvalsAnswered` true: the server's answer (the turn's JSON state,
 * which changes no part) would be followed by the same post, for ever. So answers already sent do not send again;
 * `forget()` after a failed request lets them go once more. An answer given elsewhere (the API, another tab) that the
 * stream told while the step's siblings ran arrives as `approval-responded` too, with no answer of the page's beside
 * it: posted alone it would only be refused (409 `late_result`, or `approval_already_answered`), so it goes only beside an answer of the page's own
 * (the server skips an approval already answered in a /chat body).
 */
export function approvalSender(): {
  shouldSend: (o: { messages: UIMessage[] }) => boolean;
  /** The page answered approval `id` itself (addToolApprovalResponse): its answer is one to send. */
  gave: (id: string) => void;
  forget: () => void;
} {
  const sent = new Set<string>();
  const given = new Set<string>();
  return {
    shouldSend: ({ messages }) => {
      if (!approvalsAnswered({ messages })) return false;
      const fresh = answeredIds(messages).filter((id) => !sent.has(id));
      if (!fresh.some((id) => given.has(id))) return false;
      for (const id of fresh) sent.add(id);
      return true;
    },
    gave: (id) => {
      given.add(id);
    },
    forget: () => sent.clear(),
  };
}
