// Retention through real workerd: the worker's `scheduled` handler (the wrangler.toml cron) sweeps D1
// run records past SWITCHBOARD_RETENTION_RUNS_DAYS once their run has ended. The cron is triggered
// through wrangler dev's test endpoint, with the scheduled time set in the future instead of waiting.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, HttpError, Mock, startWrangler, uniqueModel, type WranglerServer, workerVars } from "../helpers/index.ts";

const adminKey = inject("adminKey");
const mockUrl = inject("mockUrl");
const mock = new Mock(mockUrl);
const DAY = 86_400_000;

let worker: WranglerServer | undefined;
let api: Api;

beforeAll(async () => {
  worker = await startWrangler({
    extraArgs: ["--test-scheduled"],
    vars: workerVars(mockUrl, adminKey),
  });
  api = new Api(worker.url, adminKey);
});

afterAll(async () => {
  await worker?.stop();
});

async function cron(at: number): Promise<void> {
  const res = await fetch(
    `${worker?.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent("23 * * * *")}&time=${at}`,
  );
  expect(await res.text()).toBe("ok");
}

describe("retention (wrangler dev)", () => {
  it("the cron keeps an ended run's record within the retention and deletes it after", async () => {
    const model = uniqueModel("retention");
    const agent = `e2e-retention-${model}`;
    await api.putAgent(agent, { model: { provider: "anthropic", name: model }, system: "test" } as never);
    const key = (await api.createKey(`retention-${Date.now()}`)).key;
    await mock.script(model, [{ reply: { text: "done" } }]);
    const run = await api.ok<{ run_id: string }>("POST", `/v1/agents/${agent}/runs`, { key, body: { input: "go" } });
    await api.runReaching(key, run.run_id, "completed");
    await cron(Date.now() + 29 * DAY);
    expect((await api.ok<{ status: string }>("GET", `/v1/runs/${run.run_id}`, { key })).status).toBe("completed");
    await cron(Date.now() + 31 * DAY);
    const gone = await api.ok("GET", `/v1/runs/${run.run_id}`, { key }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(HttpError);
    expect((gone as HttpError).status).toBe(404);
  });
});
