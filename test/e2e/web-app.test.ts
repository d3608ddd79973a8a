// The web client (web/: useChat from @ai-sdk/react) in headless Chromium against real workerd: a message
// streams text and a tool call with its result; a reload mid-stream resumes the same answer (useChat's
// `resume: true` → GET /v1/sessions/{id}/chat/{id}/stream) and shows it once, not twice; a tool call that needs
// approval shows Approve / Deny, and clicking them answers through useChat's own approval machinery (one whose
// arguments hold `$tool` references shows the values it runs with); a first read
// of the session that failed offers Retry, which loads the conversation; a client call answered elsewhere shows its
// result and the rest of its turn without a reload, and one a new message superseded shows as the server closed it
// (its history read made again quietly when it fails); an approval answered on the page but not yet sent is not
// asked again when another approval of its step was answered elsewhere, and both answers go; one approved while
// another waits is held, not running, and a new message shows it declined; a Deny that failed keeps its reason; a
// fresh link opened in the same tab is taken; a stream dropped while the server cannot be reached, or a resumption
// refused once, is rejoined until the running turn streams; a turn another tab ran shows without a reload.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../scripts/lib/process.mjs";
import { chromiumPath, launchChromium, NO_CHROMIUM } from "../helpers/browser.ts";
import { chargeAgent, lookupAgent, weatherAgent } from "../helpers/fixtures.ts";
import {
  type AgentConfig,
  Api,
  Mock,
  readSse,
  type Step,
  startToolServer,
  type ToolServer,
  uniqueModel,
} from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const executable = chromiumPath();
const SCREENSHOTS = path.join(repoRoot, "test-output", "web");

if (!executable) {
  if (process.env.CI) throw new Error(NO_CHROMIUM.replace("SKIPPED", "required in CI"));
  console.warn(`\n⚠ ${NO_CHROMIUM}\n`);
}

let browser: Browser;
let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  if (!executable) return;
  browser = await launchChromium(executable);
  tools = await startToolServer((call) => {
    const amount = (call.input as { amount?: number } | undefined)?.amount;
    if (amount !== undefined) return { charged: amount };
    const city = (call.input as { city?: string } | undefined)?.city ?? "nowhere";
    return { city, forecast: "sunny", temp_c: 21 };
  });
  tenantKey = (await api.createKey(`web-${Date.now()}`)).key;
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await tools?.close();
});

/** An agent on its own model, a session, and the app's URL carrying a session token (no API key). */
async function openApp(
  prefix: string,
  steps: Step[],
  agent: (toolUrl: string, model: string) => AgentConfig = weatherAgent,
): Promise<{ page: Page; session: string; model: string }> {
  const model = uniqueModel(prefix);
  await api.putAgent(`agent-${model}`, agent(tools.url, model));
  const session = (await api.createSession(tenantKey, `agent-${model}`)).id;
  const { token } = await api.ok<{ token: string }>("POST", `/v1/sessions/${session}/tokens`, {
    key: tenantKey,
    body: { actions: ["send", "read", "stream", "approve"] },
  });
  await mock.script(model, steps);
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await page.goto(api.url(`/#${new URLSearchParams({ session, token })}`));
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  return { page, session, model };
}

/**
 * Reloads `page` with a fetch whose chat POST bodies can be cut (`window.cutChat()`) with the network TypeError a
 * dropped connection gives, which useChat treats as a disconnect.
 */
async function withCuttableChat(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const real = window.fetch;
    window.fetch = async (input, init) => {
      const res = await real(input, init);
      const url = String(input instanceof Request ? input.url : input);
      if (init?.method !== "POST" || !url.endsWith("/chat") || !res.body) return res;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          (window as unknown as { cutChat: () => void }).cutChat = () => {
            c.error(new TypeError("network error"));
            reader.cancel().catch(() => {});
          };
        },
        async pull(c) {
          const { done, value } = await reader.read();
          try {
            if (done) c.close();
            else c.enqueue(value);
          } catch {
            // Already cut.
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
  });
  await page.reload();
  await page.getByRole("textbox", { name: "Message" }).waitFor();
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** Sends `text`, waits for the charge_card approval, reloads the page; returns the reloaded approval's block. */
async function askedThenReloaded(page: Page, text: string): Promise<Locator> {
  await send(page, text);
  await page.locator('[data-tool="charge_card"][data-state="approval"]').waitFor();
  await page.reload();
  const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
  await asked.waitFor();
  return asked;
}

const ANSWER = "It is sunny in Paris, 21 degrees.";
const LONG_ANSWER =
  "Paris today is bright and mild, with a light breeze from the west and no rain expected before the " +
  "evening, so a walk along the river is a fine idea this afternoon.";

describe.skipIf(!executable)("the web client in Chromium", () => {
  it("streams text and a tool call with its result", async () => {
    const { page } = await openApp("web-tool", [
      { reply: { text: "Let me check.", tool_calls: [{ name: "get_weather", input: { city: "Paris" } }] } },
      { reply: { text: ANSWER } },
    ]);
    await send(page, "What is the weather in Paris?");
    await page.locator('[data-tool="get_weather"][data-state="done"]').waitFor();
    await page.getByText(ANSWER).waitFor();
    await expect(page.locator('[data-tool="get_weather"] .output').textContent()).resolves.toContain("sunny");
    await expect(page.locator('li[data-role="user"]').textContent()).resolves.toBe("What is the weather in Paris?");
    await page.locator('[data-status="ready"]').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, "chat-with-tool.png"), fullPage: true });
    await page.close();
  });

  it("resumes a turn after a reload mid-stream and shows the answer once", async () => {
    const { page } = await openApp("web-resume", [{ reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } }]);
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    expect(await page.getByText(LONG_ANSWER).count()).toBe(0); // still streaming
    await page.reload();
    await page.getByText(LONG_ANSWER).waitFor({ timeout: 30_000 });
    await page.locator('[data-status="ready"]').waitFor();
    const assistantTexts = await page.locator('li[data-role="assistant"] .text').allTextContents();
    expect(assistantTexts).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "resumed-after-reload.png"), fullPage: true });
    // A later reload reads the finished turn from history: still once.
    await page.reload();
    await page.getByText(LONG_ANSWER).waitFor();
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    await page.close();
  });

  it("Approve runs the tool that needs approval once, and the turn finishes", async () => {
    const { page, session, model } = await openApp(
      "web-approve",
      [
        { reply: { text: "Charging.", tool_calls: [{ name: "charge_card", input: { amount: 42 } }] } },
        { reply: { text: "Charged 42." } },
      ],
      chargeAgent,
    );
    await send(page, "Charge 42, please.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await expect(asked.textContent()).resolves.toContain("requires approval before it runs");
    const charges = () => tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === 42);
    expect(charges()).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "approval-requested.png"), fullPage: true });
    await asked.getByRole("button", { name: "Approve" }).click();
    await page.locator('[data-tool="charge_card"][data-state="done"]').waitFor();
    await page.getByText("Charged 42.").waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    await expect(page.locator('[data-tool="charge_card"] .output').textContent()).resolves.toContain('"charged": 42');
    expect(charges()).toHaveLength(1);
    const state = await api.ok<{ status: string; pending_approvals: unknown[] }>("GET", `/v1/sessions/${session}`, {
      key: tenantKey,
    });
    expect(state.pending_approvals).toEqual([]);
    expect(state.status).toBe("idle");
    expect((await mock.stats(model)).model).toMatchObject({ requests: 2, rejected: 0 });
    await page.close();
  });

  it("an approval of a call with $tool references shows the values it runs with, not the references", async () => {
    const quoting = (toolUrl: string, model: string): AgentConfig => {
      const agent = chargeAgent(toolUrl, model);
      const quote = {
        name: "quote_price",
        description: "Quotes a price.",
        input_schema: { type: "object", properties: { amount: { type: "number" } } },
        execution: { type: "http" as const, url: `${toolUrl}/quote` },
      };
      return { ...agent, tools: [...(agent.tools ?? []), quote] };
    };
    const { page } = await openApp(
      "web-approve-resolved",
      [
        { reply: { tool_calls: [{ id: "call_web_quote", name: "quote_price", input: { amount: 4200 } }] } },
        {
          reply: {
            tool_calls: [{ name: "charge_card", input: { amount: { $tool: "call_web_quote", $path: "charged" } } }],
          },
        },
      ],
      quoting,
    );
    await send(page, "Quote, then charge that.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await expect(asked.locator('[title="runs with"]').textContent()).resolves.toContain('"amount": 4200');
    await page.close();
  });

  it("Deny tells the model the user declined, with the reason typed, and the tool never runs", async () => {
    const { page, session, model } = await openApp(
      "web-deny",
      [
        { reply: { tool_calls: [{ name: "charge_card", input: { amount: 900 } }] } },
        { reply: { text: "Understood, I will not charge it." } },
      ],
      chargeAgent,
    );
    const before = tools.calls.length;
    await send(page, "Charge 900.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await asked.getByRole("textbox", { name: "Reason for charge_card" }).fill("too much");
    await asked.getByRole("button", { name: "Deny" }).click();
    await page.locator('[data-tool="charge_card"][data-state="denied"]').waitFor();
    await page.getByText("Understood, I will not charge it.").waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    expect(tools.calls.slice(before)).toEqual([]);
    const requests = await mock.requests(model);
    expect(requests.map((r) => r.rejected)).toEqual([null, null]);
    expect(JSON.stringify(requests[1]?.body)).toContain("the user declined: too much");
    const history = await api.history(tenantKey, session);
    const result = history.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ is_error: true, content: "the user declined: too much" });
    await page.close();
  });

  it("a reload whose stream resumption fails still shows the turn's answer, read from the stored history", async () => {
    const { page, session } = await openApp("web-resume-fails", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } },
    ]);
    // After the reload, useChat's resumption is answered 500, once the turn has finished (its stream read to the end).
    await page.route("**/chat/*/stream", async (route) => {
      await readSse(await api.stream(tenantKey, session));
      await route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "internal", message: "resumption failed" } }),
      });
    });
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    expect(await page.getByText(LONG_ANSWER).count()).toBe(0); // still streaming
    await page.reload();
    await page.getByText(LONG_ANSWER).waitFor();
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.close();
  });

  it("an approval answer that never reached the server leaves the approval open to answer again", async () => {
    const { page, model } = await openApp(
      "web-approve-dropped",
      [
        { reply: { text: "Charging 12.", tool_calls: [{ name: "charge_card", input: { amount: 12 } }] } },
        { reply: { text: "Charged 12." } },
      ],
      chargeAgent,
    );
    await send(page, "Charge 12.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // The answer's POST never reaches the server (a dropped connection); the next one does.
    let dropped = false;
    await page.route("**/chat", (route) => {
      if (route.request().method() !== "POST" || dropped) return route.continue();
      dropped = true;
      return route.abort("connectionreset");
    });
    await asked.getByRole("button", { name: "Approve" }).click();
    await page.locator('[data-status="error"]').waitFor();
    await expect(asked.getByRole("button", { name: "Approve" }).isEnabled()).resolves.toBe(true);
    expect(dropped).toBe(true);
    await asked.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Charged 12.").waitFor();
    await page.locator('[data-tool="charge_card"][data-state="done"]').waitFor();
    expect(tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === 12)).toHaveLength(1);
    expect((await mock.stats(model)).model).toMatchObject({ requests: 2, rejected: 0 });
    await page.close();
  });

  it("a Deny that never reached the server gives the approval back with the reason typed", async () => {
    const { page } = await openApp(
      "web-deny-reason",
      [{ reply: { text: "Charging 81.", tool_calls: [{ name: "charge_card", input: { amount: 81 } }] } }],
      chargeAgent,
    );
    await send(page, "Charge 81.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    await page.route("**/chat", (route) =>
      route.request().method() === "POST" ? route.abort("connectionreset") : route.continue(),
    );
    const reason = asked.getByRole("textbox", { name: "Reason for charge_card" });
    await reason.fill("over budget");
    await asked.getByRole("button", { name: "Deny" }).click();
    await page.locator('[data-status="error"]').waitFor();
    await expect(asked.getByRole("button", { name: "Deny" }).isEnabled()).resolves.toBe(true);
    await expect(reason.inputValue()).resolves.toBe("over budget");
    await page.close();
  });

  it("an approval answered elsewhere first shows how its turn went, not a call running forever", async () => {
    const { page, session } = await openApp(
      "web-approve-elsewhere",
      [
        { reply: { text: "Charging 13.", tool_calls: [{ name: "charge_card", input: { amount: 13 } }] } },
        { reply: { text: "Charged 13." } },
      ],
      chargeAgent,
    );
    await send(page, "Charge 13.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // Another tab (here the API) approves it, and the turn finishes, before this page's answer.
    const state = await api.ok<{ pending_approvals: Array<{ approval_id: string }> }>(
      "GET",
      `/v1/sessions/${session}`,
      { key: tenantKey },
    );
    const done = await api.ok<{ status: string }>("POST", `/v1/sessions/${session}/tool-approvals`, {
      key: tenantKey,
      body: { approvals: [{ approval_id: state.pending_approvals[0]?.approval_id, approved: true }] },
    });
    expect(done.status).toBe("completed");
    await asked.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Charged 13.").waitFor();
    await page.locator('[data-tool="charge_card"][data-state="done"]').waitFor();
    expect(await page.locator('[data-tool="charge_card"]').count()).toBe(1);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([
      "Charging 13.",
      "Charged 13.",
    ]);
    expect(tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === 13)).toHaveLength(1);
    // The refusal that made the page read the session again is not left as an alert.
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await page.close();
  });

  /**
   * The app, on a fresh session, paused on a client `lookup` of `who` the model asked for (`Looking <who> up.`);
   * the model's next answer is `next`.
   */
  async function pausedOnLookup(name: string, who: string, next: string) {
    const opened = await openApp(
      name,
      [
        { reply: { text: `Looking ${who} up.`, tool_calls: [{ name: "lookup", input: { key: who.toLowerCase() } }] } },
        { reply: { text: next } },
      ],
      (_url, model) => lookupAgent(model),
    );
    await send(opened.page, `What is ${who}'s address?`);
    await opened.page.locator('[data-tool="lookup"][data-state="client"]').waitFor();
    await opened.page.locator('[data-status="ready"]').waitFor();
    return opened;
  }

  it("a client call answered elsewhere (the API) shows its result and the rest of the turn, without a reload", async () => {
    const { page, session } = await pausedOnLookup("web-client-elsewhere", "Ada", "Ada is at ada@example.com.");
    // An app (here the API, with the key) answers the call while the page shows it waiting.
    const state = await api.ok<{ pending_tool_calls: Array<{ id: string }> }>("GET", `/v1/sessions/${session}`, {
      key: tenantKey,
    });
    const answered = await api.toolResults(
      tenantKey,
      session,
      [{ tool_use_id: state.pending_tool_calls[0]?.id ?? "", content: "ada@example.com" }],
      { json: true },
    );
    expect(answered.status).toBe(200);
    await page.getByText("Ada is at ada@example.com.").waitFor();
    await page.locator('[data-tool="lookup"][data-state="done"]').waitFor();
    await expect(page.locator('[data-tool="lookup"] .output').textContent()).resolves.toBe("ada@example.com");
    expect(await page.locator('[data-tool="lookup"]').count()).toBe(1);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([
      "Looking Ada up.",
      "Ada is at ada@example.com.",
    ]);
    await page.close();
  });

  it("a paused turn whose session link expired says so, instead of showing the call waiting", async () => {
    const { page, session } = await openApp(
      "web-follow-expired",
      [{ reply: { text: "Looking Eve up.", tool_calls: [{ name: "lookup", input: { key: "eve" } }] } }],
      (_url, model) => lookupAgent(model),
    );
    await send(page, "What is Eve's address?");
    await page.locator('[data-tool="lookup"][data-state="client"]').waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // The link expires while the page follows the pause: its next read of the session's state is refused.
    await page.route(
      (url) => url.pathname === `/v1/sessions/${session}`,
      (route) =>
        route.fulfill({
          status: 401,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "token_expired", message: "token expired" } }),
        }),
    );
    await expect(page.getByRole("alert").textContent()).resolves.toBe(
      "Your session link has expired. Ask for a new one.",
    );
    await page.close();
  });

  it("a paused turn that moved on while its history cannot be read is read again later and later, not every second", async () => {
    const { page, session } = await pausedOnLookup("web-follow-backoff", "Kim", "Kim is at kim@example.com.");
    // The page's time moves only when the test moves it; its reads of the session's state are counted.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 100);
    await page.evaluate((statePath) => {
      const real = window.fetch;
      const w = window as unknown as { stateReads: number };
      w.stateReads = 0;
      window.fetch = (input, init) => {
        if (new URL(String(input instanceof Request ? input.url : input), location.href).pathname === statePath)
          w.stateReads++;
        return real(input, init);
      };
    }, `/v1/sessions/${session}`);
    await page.route("**/messages?*", (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "internal_error", message: "the history read failed" } }),
      }),
    );
    const state = await api.ok<{ pending_tool_calls: Array<{ id: string }> }>("GET", `/v1/sessions/${session}`, {
      key: tenantKey,
    });
    const answered = await api.toolResults(
      tenantKey,
      session,
      [{ tool_use_id: state.pending_tool_calls[0]?.id ?? "", content: "kim@example.com" }],
      { json: true },
    );
    expect(answered.status).toBe(200);
    // The follow finds the turn moved on; reading the session again fails.
    await page.clock.runFor(2000);
    await page.getByRole("alert").getByText("The server had a problem. Try again in a moment.").waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("Still there?");
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
    await page.evaluate(() => {
      (window as unknown as { stateReads: number }).stateReads = 0;
    });
    // The next try waits longer than the last one (at least two seconds), not a second again.
    await page.clock.runFor(1500);
    await expect(page.evaluate(() => (window as unknown as { stateReads: number }).stateReads)).resolves.toBe(0);
    await page.close();
  });

  it("a paused turn that moved on elsewhere keeps an unrelated alert (a failed Stop) when it shows the new answer", async () => {
    const { page, session } = await openApp(
      "web-follow-keeps-alert",
      [
        {
          reply: { text: LONG_ANSWER, tool_calls: [{ name: "lookup", input: { key: "max" } }] },
          faults: { event_delay_ms: 60 },
        },
        { reply: { text: "Max is at max@example.com." } },
      ],
      (_url, model) => lookupAgent(model),
    );
    await page.route("**/cancel", (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "internal_error", message: "the cancel failed" } }),
      }),
    );
    await send(page, "What is Max's address?");
    await page.getByText("Paris today is").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    const stopFailed = page.getByRole("alert").getByText("The server had a problem. Try again in a moment.");
    await stopFailed.waitFor();
    await page.locator('[data-tool="lookup"][data-state="client"]').waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    const state = await api.ok<{ pending_tool_calls: Array<{ id: string }> }>("GET", `/v1/sessions/${session}`, {
      key: tenantKey,
    });
    const answered = await api.toolResults(
      tenantKey,
      session,
      [{ tool_use_id: state.pending_tool_calls[0]?.id ?? "", content: "max@example.com" }],
      { json: true },
    );
    expect(answered.status).toBe(200);
    await page.getByText("Max is at max@example.com.").waitFor();
    await expect(stopFailed.count()).resolves.toBe(1);
    await page.close();
  });

  it("an approval answered here while another was answered elsewhere is not asked again, and both answers go", async () => {
    const { page, session } = await openApp(
      "web-carry-answer",
      [
        {
          reply: {
            text: "Charging 61 and 62.",
            tool_calls: [
              { name: "charge_card", input: { amount: 61 } },
              { name: "charge_card", input: { amount: 62 } },
            ],
          },
        },
        { reply: { text: "Charged 61 and 62." } },
      ],
      chargeAgent,
    );
    await send(page, "Charge 61 and 62.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.nth(1).waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // This page approves the first; useChat keeps the answer until the step's other approval is answered too.
    await asked.first().getByRole("button", { name: "Approve" }).click();
    await page.locator('[data-tool="charge_card"][data-state="approved"]').waitFor();
    // Another tab (here the API) approves the second: the turn still waits on the server for the first.
    const state = await api.ok<{ pending_approvals: Array<{ approval_id: string; input: { amount?: number } }> }>(
      "GET",
      `/v1/sessions/${session}`,
      { key: tenantKey },
    );
    const second = state.pending_approvals.find((a) => a.input.amount === 62)?.approval_id;
    await api.ok("POST", `/v1/sessions/${session}/tool-approvals`, {
      key: tenantKey,
      body: { approvals: [{ approval_id: second, approved: true }] },
    });
    // The page follows the pause, reads the session again, gives its own answer again and sends both.
    await page.getByText("Charged 61 and 62.").waitFor();
    await expect(page.locator('[data-tool="charge_card"][data-state="done"]').count()).resolves.toBe(2);
    await expect(asked.count()).resolves.toBe(0);
    for (const amount of [61, 62]) {
      expect(tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === amount)).toHaveLength(
        1,
      );
    }
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await page.close();
  });

  it("a call approved while its step's other approval waits is held, not running, and declined when a message moves on", async () => {
    const { page } = await openApp(
      "web-approved-held",
      [
        {
          reply: {
            text: "Charging 71 and 72.",
            tool_calls: [
              { name: "charge_card", input: { amount: 71 } },
              { name: "charge_card", input: { amount: 72 } },
            ],
          },
        },
        { reply: { text: "Fine, no charges." } },
      ],
      chargeAgent,
    );
    await send(page, "Charge 71 and 72.");
    const asked = page.locator('[data-tool="charge_card"][data-state="approval"]');
    await asked.nth(1).waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // Approving the first sends nothing (useChat waits for the second answer): it says so, and nothing runs.
    await asked.first().getByRole("button", { name: "Approve" }).click();
    await page.locator('[data-tool="charge_card"][data-state="approved"]').waitFor();
    await expect(page.locator('[data-state="running"]').count()).resolves.toBe(0);
    // A new message declines both on the server; the page shows both as it closed them.
    await send(page, "Never mind.");
    await page.getByText("Fine, no charges.").waitFor();
    const declined = page.locator('[data-tool="charge_card"][data-state="denied"]');
    await declined.nth(1).waitFor();
    await expect(page.locator('[data-tool="charge_card"]').count()).resolves.toBe(2);
    expect(tools.calls.filter((c) => [71, 72].includes((c.input as { amount?: number }).amount ?? 0))).toEqual([]);
    await page.close();
  });

  it("a history read that failed right after a message was taken is made again quietly, not an alert", async () => {
    const { page } = await pausedOnLookup("web-closings-retry", "Liz", "Fine, never mind Liz.");
    // The first read of the history after the next message fails; the ones after it pass.
    let historyReads = 0;
    await page.route("**/messages?*", (route) => {
      historyReads++;
      if (historyReads > 1) return route.continue();
      return route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "internal_error", message: "the history read failed" } }),
      });
    });
    await send(page, "Never mind.");
    await page.getByText("Fine, never mind Liz.").waitFor();
    await page.locator('[data-tool="lookup"][data-state="error"]').waitFor();
    expect(historyReads).toBeGreaterThan(1);
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await page.close();
  });

  it("a client call a new message moved on from shows the result the server closed it with, not waiting", async () => {
    const { page } = await pausedOnLookup("web-client-superseded", "Bob", "Fine, never mind Bob.");
    await send(page, "Never mind.");
    await page.getByText("Fine, never mind Bob.").waitFor();
    await page.locator('[data-tool="lookup"][data-state="error"]').waitFor();
    await expect(page.locator('[data-tool="lookup"] .output').textContent()).resolves.toBe(
      "tool result unavailable: no result was provided before the next user message",
    );
    expect(await page.locator('[data-tool="lookup"]').count()).toBe(1);
    await page.close();
  });

  it("a send refused because a turn runs (started elsewhere) shows that turn streaming, and keeps the draft", async () => {
    const { page, session } = await openApp("web-send-busy", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } },
    ]);
    // Another tab (here the API) starts a turn after this page loaded: the page still shows an idle session.
    const elsewhere = await api.send(tenantKey, session, { content: "How is Paris today?" });
    expect(elsewhere.status).toBe(200);
    await send(page, "And tomorrow?");
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.getByText(LONG_ANSWER).waitFor({ timeout: 30_000 });
    await page.locator('[data-status="ready"]').waitFor();
    await expect(page.getByRole("textbox", { name: "Message" }).inputValue()).resolves.toBe("And tomorrow?");
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    await readSse(elsewhere);
    await page.close();
  });

  it("a stream broken mid-answer, resumed once the turn has ended, shows the whole answer from the history", async () => {
    const { page, session } = await openApp("web-broken-stream", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } },
    ]);
    await withCuttableChat(page);
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    await page.evaluate(() => (window as unknown as { cutChat: () => void }).cutChat());
    await page.locator('[data-status="error"]').waitFor();
    expect(await page.getByText(LONG_ANSWER).count()).toBe(0);
    // The turn ends meanwhile; then the page becomes visible again and useChat resumes: no stream (204).
    await readSse(await api.stream(tenantKey, session));
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await page.getByText(LONG_ANSWER).waitFor();
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.close();
  });

  it("a stream dropped while the page is visible reconnects by itself and shows the whole answer once", async () => {
    const { page } = await openApp("web-dropped-visible", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } },
    ]);
    await withCuttableChat(page);
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    await page.evaluate(() => (window as unknown as { cutChat: () => void }).cutChat());
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The connection dropped; reconnecting…");
    // No visibilitychange: the page rejoins by itself.
    await page.getByText(LONG_ANSWER).waitFor({ timeout: 30_000 });
    await page.locator('[data-status="ready"]').waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.close();
  });

  it("a stream dropped while the server cannot be reached is rejoined once it can be, and shows the whole answer", async () => {
    const { page, session } = await openApp("web-dropped-offline", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 60 } },
    ]);
    await withCuttableChat(page);
    // The network is down when the page first reads the session again, and back right after.
    let down = true;
    let refusedOnce = () => {};
    const refused = new Promise<void>((resolve) => {
      refusedOnce = resolve;
    });
    await page.route(
      (url) => url.pathname === `/v1/sessions/${session}`,
      (route) => {
        if (!down) return route.continue();
        refusedOnce();
        return route.abort("internetdisconnected");
      },
    );
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    await page.evaluate(() => (window as unknown as { cutChat: () => void }).cutChat());
    await refused;
    down = false;
    await page.getByText(LONG_ANSWER).waitFor({ timeout: 30_000 });
    await page.locator('[data-status="ready"]').waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.close();
  });

  it("a reload whose resumption of the running turn fails once follows the turn again, with its Stop button", async () => {
    const { page } = await openApp("web-resume-retried", [
      { reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 300 } },
    ]);
    // The reload's resumption is answered 503; the ones after it reach the server.
    let resumptions = 0;
    await page.route("**/chat/*/stream", (route) => {
      if (++resumptions > 1) return route.continue();
      return route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "unavailable", message: "try again later" } }),
      });
    });
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    await page.reload();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.getByText(LONG_ANSWER).waitFor({ timeout: 30_000 });
    await page.locator('[data-status="ready"]').waitFor();
    expect(resumptions).toBeGreaterThan(1);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([LONG_ANSWER]);
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["How is Paris today?"]);
    await page.close();
  });

  it("a turn another tab ran while this page sat idle shows once this page's own message is answered", async () => {
    const { page, session } = await openApp("web-other-tab-send", [
      { reply: { text: ANSWER } },
      { reply: { text: "Tomorrow looks sunny too." } },
    ]);
    // Another tab (here the API) asks and gets its answer; this page, loaded before, reads nothing meanwhile.
    await page.getByText("Loading the conversation…").waitFor({ state: "detached" });
    await readSse(await api.send(tenantKey, session, { content: "Is it sunny in Paris?" }));
    await send(page, "And tomorrow?");
    await page.getByText("Tomorrow looks sunny too.").waitFor();
    await page.getByText(ANSWER).waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual([
      "Is it sunny in Paris?",
      "And tomorrow?",
    ]);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([
      ANSWER,
      "Tomorrow looks sunny too.",
    ]);
    await page.close();
  });

  it("a turn another tab ran while this page sat idle shows once the page is visible again", async () => {
    const { page, session } = await openApp("web-other-tab-visible", [{ reply: { text: ANSWER } }]);
    await page.getByText("Loading the conversation…").waitFor({ state: "detached" });
    await readSse(await api.send(tenantKey, session, { content: "Is it sunny in Paris?" }));
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await page.getByText(ANSWER).waitFor();
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["Is it sunny in Paris?"]);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([ANSWER]);
    await page.close();
  });

  it("an approval still open after a reload is approved from the stored history and the resumed turn streams in", async () => {
    const charged = "Charged 77 after the reload, and the receipt is on its way to your inbox now.";
    const { page, session, model } = await openApp(
      "web-approve-reload",
      [
        { reply: { text: "Charging 77.", tool_calls: [{ name: "charge_card", input: { amount: 77 } }] } },
        { reply: { text: charged }, faults: { event_delay_ms: 60 } },
      ],
      chargeAgent,
    );
    const asked = await askedThenReloaded(page, "Charge 77.");
    const charges = () => tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === 77);
    expect(charges()).toEqual([]);
    await asked.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Charged 77 after").waitFor();
    expect(await page.getByText(charged).count()).toBe(0); // still streaming
    await page.getByText(charged).waitFor();
    await page.locator('[data-tool="charge_card"][data-state="done"]').waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    expect(charges()).toHaveLength(1);
    expect(await page.locator('[data-tool="charge_card"]').count()).toBe(1);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual(["Charging 77.", charged]);
    const state = await api.ok<{ pending_approvals: unknown[] }>("GET", `/v1/sessions/${session}`, { key: tenantKey });
    expect(state.pending_approvals).toEqual([]);
    expect((await mock.stats(model)).model).toMatchObject({ requests: 2, rejected: 0 });
    await page.close();
  });

  it("an approval still open after a reload can be denied with a reason, and the tool never runs", async () => {
    const { page, model } = await openApp(
      "web-deny-reload",
      [
        { reply: { tool_calls: [{ name: "charge_card", input: { amount: 31 } }] } },
        { reply: { text: "Fine, no charge of 31." } },
      ],
      chargeAgent,
    );
    const asked = await askedThenReloaded(page, "Charge 31.");
    await asked.getByRole("textbox", { name: "Reason for charge_card" }).fill("not now");
    await asked.getByRole("button", { name: "Deny" }).click();
    await page.locator('[data-tool="charge_card"][data-state="denied"]').waitFor();
    await page.getByText("Fine, no charge of 31.").waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    expect(await page.locator('[data-tool="charge_card"]').count()).toBe(1);
    expect(tools.calls.filter((c) => (c.input as { amount?: number } | undefined)?.amount === 31)).toEqual([]);
    const requests = await mock.requests(model);
    expect(requests.map((r) => r.rejected)).toEqual([null, null]);
    expect(JSON.stringify(requests[1]?.body)).toContain("the user declined: not now");
    await page.close();
  });

  it("a send the server never took leaves the transcript and goes back to the draft; sent again, it runs", async () => {
    const { page } = await openApp("web-unsent", [{ reply: { text: ANSWER } }]);
    // The first POST never reaches the server (a dropped connection); the next ones do.
    let dropped = false;
    await page.route("**/chat", (route) => {
      if (route.request().method() !== "POST" || dropped) return route.continue();
      dropped = true;
      return route.abort("connectionreset");
    });
    await send(page, "Is it sunny in Paris?");
    await page.getByRole("alert").waitFor();
    await expect(page.getByRole("textbox", { name: "Message" }).inputValue()).resolves.toBe("Is it sunny in Paris?");
    await expect(page.locator('li[data-role="user"]').count()).resolves.toBe(0);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText(ANSWER).waitFor();
    await expect(page.locator('li[data-role="user"]').allTextContents()).resolves.toEqual(["Is it sunny in Paris?"]);
    await page.close();
  });

  it("a send that fails after an earlier failed send also goes back to the draft, not into the transcript", async () => {
    const { page } = await openApp("web-unsent-twice", [{ reply: { text: ANSWER } }]);
    // The first two POSTs never reach the server; the second follows the first one's error (cleared by Send).
    let drops = 0;
    let secondDropped = () => {};
    const second = new Promise<void>((resolve) => {
      secondDropped = resolve;
    });
    await page.route("**/chat", (route) => {
      if (route.request().method() !== "POST" || drops === 2) return route.continue();
      if (++drops === 2) secondDropped();
      return route.abort("connectionreset");
    });
    const draft = page.getByRole("textbox", { name: "Message" });
    await send(page, "Is it sunny in Paris?");
    await page.getByRole("alert").waitFor();
    await expect(draft.inputValue()).resolves.toBe("Is it sunny in Paris?");
    await page.getByRole("button", { name: "Send" }).click();
    await second;
    await page.locator('[data-status="error"]').waitFor();
    await expect(draft.inputValue()).resolves.toBe("Is it sunny in Paris?");
    await expect(page.locator('li[data-role="user"]').count()).resolves.toBe(0);
    await page.close();
  });

  it("a failed turn says why under the turn, and says it again after a reload", async () => {
    const { page } = await openApp("web-failed", [
      { error: { status: 400, message: "the model refused the request" } },
    ]);
    await send(page, "Is it sunny in Paris?");
    const line = page.locator('li[data-role="assistant"] .notice');
    await line.waitFor();
    await expect(line.textContent()).resolves.toMatch(/^The answer failed: .*the model refused the request/);
    // Said once: the line under the turn, not an alert beside it.
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await page.reload();
    await page.locator('li[data-role="user"]').waitFor();
    const after = page.locator('li[data-role="assistant"] .notice');
    await after.waitFor();
    await expect(after.allTextContents()).resolves.toEqual([expect.stringMatching(/the model refused the request/)]);
    await page.close();
  });

  it("an earlier failed turn still says why after a reload, when a later turn answered", async () => {
    const { page } = await openApp("web-failed-earlier", [
      { error: { status: 400, message: "the earlier request was refused" } },
      { reply: { text: ANSWER } },
    ]);
    await send(page, "Is it sunny in Paris?");
    await page.locator('li[data-role="assistant"] .notice').waitFor();
    await send(page, "And now?");
    await page.getByText(ANSWER).waitFor();
    await page.reload();
    await page.getByText(ANSWER).waitFor();
    const lines = page.locator('li[data-role="assistant"] .notice');
    await expect(lines.allTextContents()).resolves.toEqual([expect.stringMatching(/the earlier request was refused/)]);
    await page.close();
  });

  it("Stop ends the answer and the turn says it was stopped, after a reload too", async () => {
    const { page } = await openApp("web-stopped", [{ reply: { text: LONG_ANSWER }, faults: { event_delay_ms: 80 } }]);
    await send(page, "How is Paris today?");
    await page.getByText("Paris today is").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator('[data-status="ready"]').waitFor();
    await page.locator('li[data-role="assistant"] .notice').getByText("Stopped.").waitFor();
    await page.reload();
    await page.locator('li[data-role="user"]').waitFor();
    await page.locator('li[data-role="assistant"] .notice').getByText("Stopped.").waitFor();
    await page.close();
  });

  it("a first read of the session that failed offers Retry, which loads the conversation", async () => {
    const { page, session } = await openApp("web-retry-read", [{ reply: { text: ANSWER } }]);
    await send(page, "Is it sunny in Paris?");
    await page.getByText(ANSWER).waitFor();
    await page.locator('[data-status="ready"]').waitFor();
    // After the reload, the first read of the session's state is answered 500; the ones after it are not.
    let failed = false;
    await page.route(
      (url) => url.pathname === `/v1/sessions/${session}`,
      (route) => {
        if (failed) return route.continue();
        failed = true;
        return route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "internal_error", message: "the state read failed" } }),
        });
      },
    );
    await page.reload();
    await page.getByText("The conversation could not be read.").waitFor();
    await expect(page.getByRole("alert").textContent()).resolves.toBe(
      "The server had a problem. Try again in a moment.",
    );
    expect(failed).toBe(true);
    await expect(page.locator('li[data-role="assistant"]').count()).resolves.toBe(0);
    await page.getByRole("button", { name: "Retry" }).click();
    await page.getByText(ANSWER).waitFor();
    expect(await page.locator('li[data-role="user"]').allTextContents()).toEqual(["Is it sunny in Paris?"]);
    expect(await page.locator('li[data-role="assistant"] .text').allTextContents()).toEqual([ANSWER]);
    await expect(page.getByRole("alert").count()).resolves.toBe(0);
    await page.close();
  });

  it("says in words when the session link has expired", async () => {
    const model = uniqueModel("web-expired");
    await api.putAgent(`agent-${model}`, weatherAgent(tools.url, model));
    const session = (await api.createSession(tenantKey, `agent-${model}`)).id;
    const page = await browser.newPage();
    await page.goto(api.url(`/#${new URLSearchParams({ session, token: "sbt_not.a.valid.token" })}`));
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/link is not valid|expired/);
    await page.close();
  });

  it("takes a fresh link opened in the same tab: the token leaves the address bar and the session opens", async () => {
    const model = uniqueModel("web-same-tab-link");
    await api.putAgent(`agent-${model}`, weatherAgent(tools.url, model));
    await mock.script(model, [{ reply: { text: "Hello from the fresh link." } }]);
    const session = (await api.createSession(tenantKey, `agent-${model}`)).id;
    const { token } = await api.ok<{ token: string }>("POST", `/v1/sessions/${session}/tokens`, {
      key: tenantKey,
      body: { actions: ["send", "read", "stream"] },
    });
    const page = await browser.newPage();
    await page.goto(api.url(`/#${new URLSearchParams({ session, token: "sbt_not.a.valid.token" })}`));
    await page.getByRole("alert").waitFor();
    // Only the fragment changes (a same-document navigation): the page takes the link and loads again on it.
    const reloaded = page.waitForEvent("load");
    await page.goto(api.url(`/#${new URLSearchParams({ session, token })}`));
    await reloaded;
    expect(new URL(page.url()).hash).toBe("");
    await send(page, "Hello?");
    await page.getByText("Hello from the fresh link.").waitFor();
    await page.close();
  });
});
