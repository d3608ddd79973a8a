// Cursor pagination by count and bytes (`pageEnd`, src/storage/page.ts): where a page of stored rows ends and
// whether rows follow it, as GET /messages, /events and /v1/agents cut their pages.
import { describe, expect, it } from "vitest";
import { pageEnd } from "../../../src/storage/page";

const sized = (...bytes: number[]) => bytes.map((b, i) => ({ key: i + 1, bytes: b }));

describe("pageEnd", () => {
  it("ends before the row that would take the page over its bytes, with rows following", () => {
    expect(pageEnd(sized(40, 40, 40, 40), 3, 100)).toEqual({ last: 2, count: 2, more: true });
  });

  it("holds a first row larger than the budget alone, so a page is never empty while rows follow", () => {
    expect(pageEnd(sized(500, 10), 3, 100)).toEqual({ last: 1, count: 1, more: true });
  });

  it("ends at the limit when the extra row read past it exists, as a page cut by count", () => {
    expect(pageEnd(sized(1, 1, 1), 2, 100)).toEqual({ last: 2, count: 2, more: true });
  });

  it("is the last page when every row read fits", () => {
    expect(pageEnd(sized(1, 1), 2, 100)).toEqual({ last: 2, count: 2, more: false });
  });

  it("is null when no row follows the cursor", () => {
    expect(pageEnd([], 2, 100)).toBeNull();
  });
});
