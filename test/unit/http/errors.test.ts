// docs/API.md's Errors table lists every error code the API answers, with its status: each code a route throws
// (`ApiError`, `errorBody`) or a session object refuses with (`failure()`, given its status by `statusOf`),
// found by scanning src, and no code that nothing answers.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiError, statusOf } from "../../../src/http/errors";

const root = new URL("../../../", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** "<status> <code>" of every error the source answers with. */
function answered(): Set<string> {
  const out = new Set<string>();
  for (const file of sourceFiles(path.join(root, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/new ApiError\(\s*(\d{3}),\s*"([a-z_]+)"/g)) out.add(`${m[1]} ${m[2]}`);
    for (const m of text.matchAll(/errorBody\("([a-z_]+)",[^\n]*\),\s*(\d{3})\)/g)) out.add(`${m[2]} ${m[1]}`);
    for (const m of text.matchAll(/\bfailure\(\s*"([a-z_]+)"/g)) out.add(`${statusOf(m[1] as string)} ${m[1]}`);
  }
  return out;
}

/** "<status> <code>" of each row of docs/API.md's Errors table. */
function documented(): Set<string> {
  const doc = readFileSync(path.join(root, "docs", "API.md"), "utf8");
  const table = doc.slice(doc.indexOf("\n## Errors"));
  return new Set([...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`));
}

describe("docs/API.md's Errors table", () => {
  it("lists every error code the API answers, with its status", () => {
    const rows = documented();
    expect([...answered()].filter((e) => !rows.has(e)).sort()).toEqual([]);
  });

  it("lists no code that nothing answers", () => {
    const codes = answered();
    expect([...documented()].filter((e) => !codes.has(e)).sort()).toEqual([]);
  });
});

describe("apiError", () => {
  it("asks a caller refused for a full run queue to come back after a minute (Retry-After)", () => {
    const err = apiError({ code: "run_queue_full", message: "full" });
    expect([err.status, err.headers["retry-after"]]).toEqual([429, "60"]);
  });

  it("sets no Retry-After on a refusal that waiting does not change", () => {
    expect(apiError({ code: "late_result", message: "late" }).headers).toEqual({});
  });
});
