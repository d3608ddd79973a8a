// Human approval through the AI SDK's own client: `Chat` from @ai-sdk/react (the class useChat wraps) with
// DefaultChatTransport against POST /chat, `addToolApprovalResponse` and
// `lastAssistantMessageIsCompleteWithApprovalResponses` sending the answer on its own — under real workerd.
// The tool endpoint proves a declined call never ran and an approved one ran once.
import { Chat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  type DynamicToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chargeAgent } from "../helpers/fixtures.ts";
import { Api, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  tools = await startToolServer((call) => ({ charged: (call.input as { amount?: number } | undefined)?.amount }));
  tenantKey = (await api.createKey(`approvals-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

interface Harness {
  chat: Chat<UIMessage>;
  session: string;
  model: string;
  bodies: string[];
  /** Resolves at the n-th finished response (1-based). */
  finished(n: number): Promise<void>;
  errors: Error[];
}

async function harness(prefix: string, provider: "anthropic" | "openai"): Promise<Harness> {
  const model = uniqueModel(prefix);
  const agent = `agent-${model}`;
  await api.putAgent(agent, chargeAgent(tools.url, model, provider));
  const session = (await api.createSession(tenantKey, agent)).id;
  const bodies: string[] = [];
  const errors: Error[] = [];
  let done = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const chat = new Chat<UIMessage>({
    id: session,
    transport: new DefaultChatTransport<UIMessage>({
      api: api.url(`/v1/sessions/${encodeURIComponent(session)}/chat`),
      headers: { authorization: `Bearer ${tenantKey}` },
      fetch: async (input, init) => {
        if (typeof init?.body === "string") bodies.push(init.body);
        // Checked against the OpenAPI document (the stream frame by frame) as the transport reads it.
        return api.fetch(input, init);
      },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: (e) => errors.push(e),
    onFinish: () => {
      done += 1;
      for (const w of waiters.filter((x) => x.n <= done)) w.resolve();
    },
  });
  const finished = (n: number) =>
    n <= done ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }));
  return { chat, session, model, bodies, finished, errors };
}

function toolPart(chat: Chat<UIMessage>): DynamicToolUIPart | undefined {
  const last = chat.messages.at(-1);
  return last?.parts.find((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
}

function callsFor(toolCallId: string | undefined) {
  return tools.calls.filter((c) => c.tool_use_id === toolCallId);
}

for (const provider of ["anthropic", "openai"] as const) {
  describe(`useChat approvals over ${provider}`, () => {
    it("approve: the part goes approval-requested → output-available, and the tool runs once even if the answer is sent twice", async () => {
      const h = await harness(`approve-${provider}`, provider);
      await mock.script(h.model, [
        { reply: { text: "Charging.", tool_calls: [{ name: "charge_card", input: { amount: 42 } }] } },
        { reply: { text: "Charged 42." } },
      ]);
      await h.chat.sendMessage({ text: "Charge 42, please." });
      const asked = toolPart(h.chat);
      expect(asked?.state).toBe("approval-requested");
      if (asked?.state !== "approval-requested") throw new Error("no approval request");
      expect(asked.approval.signature).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(asked.approval.requestReason).toBe('"charge_card" requires approval before it runs');
      expect(callsFor(asked.toolCallId)).toHaveLength(0);

      await h.chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
      await h.finished(2);
      expect(h.errors).toEqual([]);
      const done = toolPart(h.chat);
      expect(done?.state).toBe("output-available");
      expect(done?.output).toEqual({ charged: 42 });
      const texts = (h.chat.messages.at(-1)?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : []));
      expect(texts).toEqual(["Charging.", "Charged 42."]);
      expect(callsFor(asked.toolCallId)).toHaveLength(1);

      // What useChat sent: the assistant message with the approval-responded part and the echoed signature.
      const approvalBody = h.bodies[1] as string;
      const sent = JSON.parse(approvalBody) as { messages: UIMessage[] };
      const part = sent.messages.at(-1)?.parts.find((p) => p.type === "dynamic-tool") as DynamicToolUIPart;
      expect(part).toMatchObject({
        state: "approval-responded",
        approval: { id: asked.approval.id, approved: true, signature: asked.approval.signature },
      });
      // The same answer again: refused, and the tool still ran once.
      const again = await api.request("POST", `/v1/sessions/${h.session}/chat`, {
        key: tenantKey,
        rawBody: approvalBody,
      });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe("approval_already_answered");
      expect(callsFor(asked.toolCallId)).toHaveLength(1);
      expect((await mock.stats(h.model)).model).toMatchObject({ requests: 2, rejected: 0 });
    });

    it("deny: the part becomes output-denied, the tool never runs, and the model is told why", async () => {
      const h = await harness(`deny-${provider}`, provider);
      await mock.script(h.model, [
        { reply: { tool_calls: [{ name: "charge_card", input: { amount: 500 } }] } },
        { reply: { text: "Okay, I did not charge it." } },
      ]);
      await h.chat.sendMessage({ text: "Charge 500." });
      const asked = toolPart(h.chat);
      if (asked?.state !== "approval-requested") throw new Error("no approval request");

      await h.chat.addToolApprovalResponse({ id: asked.approval.id, approved: false, reason: "too much" });
      await h.finished(2);
      expect(h.errors).toEqual([]);
      expect(toolPart(h.chat)?.state).toBe("output-denied");
      expect(callsFor(asked.toolCallId)).toHaveLength(0);

      const history = await api.history(tenantKey, h.session);
      const result = history.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
      expect(result).toMatchObject({
        tool_use_id: asked.toolCallId,
        is_error: true,
        content: "the user declined: too much",
      });
      // The provider saw the declined result paired with its call, and accepted every request.
      const requests = await mock.requests(h.model);
      expect(requests.map((r) => r.rejected)).toEqual([null, null]);
      expect(JSON.stringify(requests[1]?.body)).toContain("the user declined: too much");
    });
  });
}

describe("a tampered useChat approval", () => {
  it("an approval whose input was changed on the client is refused, and nothing changes", async () => {
    const h = await harness("tamper", "anthropic");
    await mock.script(h.model, [
      { reply: { tool_calls: [{ name: "charge_card", input: { amount: 5 } }] } },
      { reply: { text: "Charged." } },
    ]);
    await h.chat.sendMessage({ text: "Charge 5." });
    const asked = toolPart(h.chat);
    if (asked?.state !== "approval-requested") throw new Error("no approval request");
    const before = await api.getSession(tenantKey, h.session);
    // The body useChat would send for an approval, with the amount raised after the person saw 5.
    const message = structuredClone(h.chat.messages.at(-1) as UIMessage);
    message.parts = message.parts.map((p) =>
      p.type === "dynamic-tool" && p.state === "approval-requested"
        ? ({
            ...p,
            input: { amount: 5000 },
            state: "approval-responded",
            approval: { ...p.approval, approved: true },
          } as DynamicToolUIPart)
        : p,
    );
    const res = await api.request("POST", `/v1/sessions/${h.session}/chat`, {
      key: tenantKey,
      body: { id: h.session, trigger: "submit-message", messages: [...h.chat.messages.slice(0, -1), message] },
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("approval_signature_mismatch");
    expect(await api.getSession(tenantKey, h.session)).toEqual(before);
    expect(callsFor(asked.toolCallId)).toHaveLength(0);
  });
});
