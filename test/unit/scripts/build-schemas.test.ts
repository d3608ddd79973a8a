// scripts/build-schemas.mjs (`npm run schemas`): the committed Ajv standalone validators are what it
// makes of today's fixed schemas — a schema edited without regenerating fails here, not in production —
// and they are plain JavaScript that workerd can run (no eval, no new Function, no require).
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

describe("npm run schemas", () => {
  it("has written the validators of today's fixed schemas (run `npm run schemas` if this fails)", async () => {
    const check = await promisify(execFile)(process.execPath, ["scripts/build-schemas.mjs", "--check"], {
      cwd: root.pathname,
    }).catch((e: { stderr?: string }) => ({ stdout: "", stderr: e.stderr ?? String(e) }));
    expect(check.stderr).toBe("");
    expect(check.stdout).toContain("up to date");
  });

  it("generates code that needs no eval, new Function or require at run time", async () => {
    const js = await readFile(new URL("src/json-schema/generated/fixed-validators.js", root), "utf8");
    expect(js).toContain("export const fixedValidators = {");
    expect(js).not.toMatch(/\beval\(|new Function|\bFunction\(|\brequire\(/);
  });
});
