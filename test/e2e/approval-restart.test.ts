// An approval survives a crash: a wrangler dev of its own pauses a turn for approval, is killed without a
// graceful shutdown, and a new one is started on the same persist dir. The session must still list the
// same open approval (same id and signature), and answering it must run the tool once and finish the turn.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chargeAgent } from "../helpers/fixtures.ts";
import {
  Api,
  HttpError,
  killGroup,
  Mock,
  startToolServer,
  startWrangler,
  type ToolServer,
  uniqueModel,
  type WranglerServer,
  workerVars,
} from "../helpers/index.ts";

const adminKey = inject("adminKey");
const mockUrl = inject("mockUrl");
const mock = new Mock(mockUrl);

const vars = workerVars(mockUrl, adminKey);

let persistDir: string;
let worker: WranglerServer | undefined;
let tools: ToolServer;

beforeAll(async () => {
  persistDir = await mkdtemp(path.join(tmpdir(), "switchboard-e2e-approval-restart-"));
  worker = await startWrangler({ vars, persistDir });
  tools = await startToolServer(() => ({ charged: true }));
});

afterAll(async () => {
  await worker?.stop();
  await tools?.close();
  if (persistDir !== undefined) await rm(persistDir, { recursive: true, force: true });
});

interface SessionView {
  status: string;
  last_turn: { status: string } | null;
  pending_approvals: Array<{ approval_id: string; tool_call_id: string; signature: string; input: unknown }>;
}

describe("a worker restart while a turn awaits approval", () => {
  it("changes nothing: the approval is still open, and answering it completes the turn", {
    timeout: 180_000,
  }, async () => {
    const first = worker;
    if (first === undefined) throw new Error("no worker");
    let api = new Api(first.url, adminKey);
    const tenantKey = (await api.createKey(`approval-restart-${Date.now()}`)).key;
    const model = uniqueModel("approval-restart");
    const agent = `agent-${model}`;
    await api.putAgent(agent, chargeAgent(tools.url, model));
    const session = (await api.createSession(tenantKey, agent)).id;
    await mock.script(model, [
      { reply: { tool_calls: [{ name: "charge_card", input: { amount: 12 } }] } },
      { reply: { text: "Charged 12 after the restart." } },
    ]);

    const paused = await api.json<{ status: string }>("POST", `/v1/sessions/${session}/messages`, {
      key: tenantKey,
      body: { content: "Charge 12." },
    });
    expect(paused.body.status).toBe("awaiting_approval");
    const before = (await api.getSession(tenantKey, session)).body as SessionView;
    expect(before.pending_approvals).toHaveLength(1);

    // Crash: kill the whole process group (wrangler and workerd) without a graceful shutdown.
    killGroup(first.pid, "SIGKILL");
    await first.stop();
    worker = await startWrangler({ vars, persistDir });
    api = new Api(worker.url, adminKey);

    const after = (await api.getSession(tenantKey, session)).body as SessionView;
    expect(after.status).toBe("awaiting_approval");
    expect(after.last_turn?.status).toBe("awaiting_approval");
    expect(after.pending_approvals).toEqual(before.pending_approvals);
    expect(tools.calls).toHaveLength(0);

    const open = after.pending_approvals[0];
    const res = await api.json<{ status: string; messages: unknown[] }>(
      "POST",
      `/v1/sessions/${session}/tool-approvals`,
      {
        key: tenantKey,
        // The signature issued before the restart still verifies after it.
        body: { approvals: [{ approval_id: open?.approval_id, approved: true, signature: open?.signature }] },
      },
    );
    if (res.status !== 200) throw new HttpError("POST /tool-approvals", res.status, res.text);
    expect(res.body.status).toBe("completed");
    expect(tools.calls.map((c) => c.tool_use_id)).toEqual([open?.tool_call_id]);
    const requests = await mock.requests(model);
    expect(requests.map((r) => r.rejected)).toEqual([null, null]);
  });
});
