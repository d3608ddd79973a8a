// The MCP fixture server as its own OS process, so tests can kill it (SIGKILL: connections drop with no
// goodbye) and start it again on the same port. Run directly, this file is the child's entry point:
//   node test/helpers/mcp-process.ts --port 0 --preset basic [--authorization "Bearer x"]
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { killChild } from "../../scripts/lib/process.mjs";
import { presetTools } from "./mcp-presets.ts";
import type { McpRequestRecord, McpToolSpec } from "./mcp-server.ts";
import { startMcpServer } from "./mcp-server.ts";

const SELF = fileURLToPath(import.meta.url);

export interface McpProcess {
  url: string;
  port: number;
  requests(): Promise<McpRequestRecord[]>;
  setTools(tools: McpToolSpec[]): Promise<void>;
  kill(): Promise<void>;
}

export async function spawnMcpServer(opts: {
  preset: string;
  port?: number;
  authorization?: string;
}): Promise<McpProcess> {
  const args = [SELF, "--port", String(opts.port ?? 0), "--preset", opts.preset];
  if (opts.authorization) args.push("--authorization", opts.authorization);
  const child: ChildProcess = spawn(process.execPath, ["--no-warnings", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`MCP fixture exited early (${code})`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    port,
    async requests() {
      return (await (await fetch(`${base}/_fixture/requests`)).json()) as McpRequestRecord[];
    },
    async setTools(tools) {
      await fetch(`${base}/_fixture/tools`, { method: "POST", body: JSON.stringify(tools) });
    },
    kill() {
      return killChild(child, "SIGKILL");
    },
  };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === SELF) {
  const auth = arg("authorization");
  const fixture = await startMcpServer({
    tools: presetTools(arg("preset") ?? "basic"),
    port: Number(arg("port") ?? 0),
    ...(auth ? { authorization: auth } : {}),
  });
  process.stdout.write(`listening ${fixture.port}\n`);
}
