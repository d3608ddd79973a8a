// reduceIssues (src/json-schema/reduce-issues.ts): a validator's raw errors cut down to a few readable issues and a
// count, however many items fail.
import { describe, expect, it } from "vitest";
import { type IssueDraft, reduceIssues } from "../../../src/json-schema/reduce-issues";

describe("reduceIssues", () => {
  it("reduces the errors of 20,000 bad items to the first ten and a count", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => i);
    const drafts: IssueDraft[] = [{ pointer: "", keyword: "properties", message: "", wrapper: true }];
    for (let i = 0; i < ids.length; i++) {
      drafts.push({ pointer: "/ids", keyword: "items", message: "", wrapper: true });
      drafts.push({ pointer: `/ids/${i}`, keyword: "type", message: "", types: ["string"], wrapper: false });
    }
    const { issues, omitted } = reduceIssues(drafts, { ids });
    expect(issues).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        path: `/ids/${i}`,
        keyword: "type",
        message: "expected string, got integer",
      })),
    );
    expect(omitted).toBe(19_990);
  });

  it("shows a long key in an issue's path by its head, and two keys with one head as two issues", () => {
    const a = `${"k".repeat(100)}a`;
    const b = `${"k".repeat(100)}b`;
    const drafts: IssueDraft[] = [a, b].map((key) => ({
      pointer: `/${key}/x`,
      keyword: "type",
      message: "",
      types: ["string"],
      wrapper: false,
    }));
    const { issues } = reduceIssues(drafts, { [a]: { x: 1 }, [b]: { x: 2 } });
    expect(issues.map((i) => i.path)).toEqual([`/${"k".repeat(59)}…/x`, `/${"k".repeat(59)}…/x`]);
  });

  it("keeps only the innermost wrapper that nothing more specific explains", () => {
    const drafts: IssueDraft[] = [
      { pointer: "", keyword: "properties", message: "outer", wrapper: true },
      { pointer: "/a", keyword: "oneOf", message: "matches more than one", wrapper: true },
      { pointer: "/a//b", keyword: "anyOf", message: "matches none", wrapper: true },
      { pointer: "/c", keyword: "anyOf", message: "explained below", wrapper: true },
      { pointer: "/c/d", keyword: "required", message: "missing", wrapper: false },
    ];
    expect(reduceIssues(drafts, {}).issues).toEqual([
      { path: "/a//b", keyword: "anyOf", message: "matches none" },
      { path: "/c/d", keyword: "required", message: "missing" },
    ]);
  });
});
