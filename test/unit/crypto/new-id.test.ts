// Minted ids (src/crypto/new-id.ts): the prefix, `_`, and 32 lowercase hex digits, fresh every call.
import { describe, expect, it } from "vitest";
import { newId } from "../../../src/crypto/new-id";

describe("newId", () => {
  it("is the prefix, an underscore and 32 lowercase hex digits", () => {
    expect(newId("ses")).toMatch(/^ses_[0-9a-f]{32}$/);
  });

  it("is a different id every call", () => {
    expect(newId("turn")).not.toBe(newId("turn"));
  });
});
