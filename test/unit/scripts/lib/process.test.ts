// The shared process helpers (scripts/lib/process.mjs) that `npm start`, the e2e suite and the benches rely on:
// a stopped group leaves none of its processes running, waiting ends when the server's process dies, and a
// bound port is not reported free.
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, portIsFree, spawnGroup, stopGroup, waitForHttp } from "../../../../scripts/lib/process.mjs";
import { alive } from "../../../helpers/alive.ts";

describe("process helpers", () => {
  it("stopGroup ends the group leader and the process it started", async () => {
    // The leader starts a grandchild that runs until killed and prints its pid, like wrangler starting workerd.
    const script = `
      const { spawn } = require("node:child_process");
      const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      console.log(grandchild.pid);
      setInterval(() => {}, 1000);
    `;
    const leader = spawnGroup(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const grandchildPid = await new Promise<number>((resolve) => {
      leader.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    });
    expect(alive(grandchildPid)).toBe(true);
    await stopGroup(leader, 2_000);
    expect(leader.exitCode !== null || leader.signalCode !== null).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(grandchildPid)).toBe(false);
  });

  it("waitForHttp fails at once when the server's process exits", async () => {
    const port = await freePort();
    const crashing = spawnGroup(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" });
    // Only the exit check says "exited early": a wait that missed the exit would end at the deadline, 20 s on.
    await expect(
      waitForHttp(`http://127.0.0.1:${port}/healthz`, {
        what: "the crashing server",
        timeoutMs: 20_000,
        child: crashing,
      }),
    ).rejects.toThrow(/the crashing server exited early \(code 3/);
  });

  it("portIsFree is false while a server holds the port", async () => {
    const holder = createServer();
    const port = await new Promise<number>((resolve) => {
      holder.listen(0, "127.0.0.1", () => resolve((holder.address() as { port: number }).port));
    });
    try {
      expect(await portIsFree(port)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
