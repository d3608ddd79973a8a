// The web client's chat transport (web/src/chat-transport.ts `chatTransport`): what it tells the page of the
// requests useChat makes through it, which useChat's status cannot tell: how a resumption of the running turn was
// answered, and whether the server took a message sent.
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chatTransport, type ResumeAnswer } from "../../../web/src/chat-transport.ts";
import { ApiFailure } from "../../../web/src/errors.ts";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The transport of session `session`, and what it told. */
function watched(session: string) {
  const told = { resumed: [] as ResumeAnswer[], taken: 0 };
  const transport = chatTransport(
    { session, token: "sbt_test" },
    { resumed: (a) => told.resumed.push(a), taken: () => told.taken++ },
  );
  return { transport, told };
}

const message: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] };

describe("chatTransport", () => {
  it("tells a resumption answered with no turn streaming (204)", async () => {
    vi.stubGlobal("fetch", async () => new Response(null, { status: 204 }));
    const { transport, told } = watched("s-transport-204");
    expect(await transport.reconnectToStream({ chatId: "s-transport-204" })).toBeNull();
    expect(told).toEqual({ resumed: [{ status: 204 }], taken: 0 });
  });

  it("tells a resumption that failed, with its failure", async () => {
    vi.stubGlobal("fetch", async () =>
      Response.json({ error: { code: "unavailable", message: "try later" } }, { status: 503 }),
    );
    const { transport, told } = watched("s-transport-503");
    await expect(transport.reconnectToStream({ chatId: "s-transport-503" })).rejects.toBeInstanceOf(ApiFailure);
    expect(told.resumed).toEqual([{ status: 503, failure: expect.any(ApiFailure) }]);
    expect(told.taken).toBe(0);
  });

  it("tells a send taken once the server answers its POST, and not one it refused", async () => {
    let status = 200;
    vi.stubGlobal("fetch", async () =>
      status === 200
        ? new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } })
        : Response.json({ error: { code: "turn_in_progress", message: "a turn is running" } }, { status }),
    );
    const { transport, told } = watched("s-transport-send");
    const send = () =>
      transport.sendMessages({
        chatId: "s-transport-send",
        messages: [message],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      });
    await send();
    status = 409;
    await expect(send()).rejects.toBeInstanceOf(ApiFailure);
    expect(told).toEqual({ resumed: [], taken: 1 });
  });
});
