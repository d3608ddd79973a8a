// What the app posts to POST /v1/sessions/{id}/chat. The server owns the history and reads only the newest
// message (src/http/routes/chat-body.ts), but its body cap counts every byte sent: useChat's default body, the
// whole conversation, would pass that cap once a tab's live tool outputs add up, and every send after it would fail.
import type { PrepareSendMessagesRequest, UIMessage } from "ai";

/**
 * The chatBody fields the server reads (the transport's extra body, the chat id, the trigger and message id) with
 * the newest message alone: a new user message, or the assistant message carrying approval answers or tool outputs.
 */
export const newestMessageOnly: PrepareSendMessagesRequest<UIMessage> = ({
  body,
  id,
  messages,
  trigger,
  messageId,
}) => ({
  body: { ...body, id, messages: messages.slice(-1), trigger, messageId },
});
