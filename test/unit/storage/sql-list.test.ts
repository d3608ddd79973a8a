// `sqlList` (src/storage/sql-list.ts) renders TypeScript constants as the SQL string literals a query's
// `IN (…)` names.
import { describe, expect, it } from "vitest";
import { sqlList } from "../../../src/storage/sql-list";

describe("sqlList", () => {
  it("renders the values as quoted literals in their order, as a literal list spells them", () => {
    expect(sqlList(["queued", "running", "awaiting_approval"])).toBe("'queued', 'running', 'awaiting_approval'");
  });

  it("doubles a quote inside a value, so the value stays one literal", () => {
    expect(sqlList(["it's"])).toBe("'it''s'");
  });
});
