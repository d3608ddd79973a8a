// `chatTransport`: the transport the chat's useChat runs on (POST /v1/sessions/{id}/chat with the session token, the
// newest message alone: chat-request.ts), its fetch watched for what useChat's status cannot tell: how a resumption
// of the running turn (GET {chat endpoint}/{chatId}/stream) was answered, and whether the server took a message sent.
import { DefaultChatTransport, type UIMessage } from "ai";
import { newestMessageOnly } from "./chat-request";
import { type Connection, sessionPath } from "./connection";
import { ApiFailure, friendlyFetch } from "./errors";
import { authHeaders } from "./session-reads";

/**
 * How useChat's resumption (GET …/stream) was answered: 204 = no turn streaming any more; the failure and its
 * status (0: unreachable) when it failed.
 */
export interface ResumeAnswer {
  status: number;
  failure?: ApiFailure;
}

/** What the transport tells of the requests it makes. */
export interface TransportWatch {
  /** A resumption was answered, or failed. */
  resumed: (answer: ResumeAnswer) => void;
  /**
   * The server took the newest send (its POST answered 2xx): useChat's status cannot tell, since it stays
   * "submitted" until the first visible chunk.
   */
  taken: () => void;
}

/** The chat's transport for `conn`, telling `watch` how its resumptions were answered and when a send was taken. */
export function chatTransport(conn: Connection, watch: TransportWatch): DefaultChatTransport<UIMessage> {
  const watched: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const method = init?.method ?? "GET";
    const resuming = method === "GET" && url.endsWith("/stream");
    let res: Response;
    try {
      res = await friendlyFetch(input, init);
    } catch (e) {
      if (resuming && e instanceof ApiFailure) watch.resumed({ status: e.status, failure: e });
      throw e;
    }
    if (resuming) watch.resumed({ status: res.status });
    if (method === "POST" && url.endsWith("/chat") && res.ok) watch.taken();
    return res;
  };
  return new DefaultChatTransport({
    api: `${sessionPath(conn)}/chat`,
    headers: authHeaders(conn),
    fetch: watched,
    prepareSendMessagesRequest: newestMessageOnly,
  });
}
