// Approval signatures (src/session/approval-signature.ts): one verifies for exactly what it was made for (the input
// in any key order), under that session's key, and a malformed one is refused without the key being asked for.
import { describe, expect, it } from "vitest";
import {
  importKeyText,
  newKeyText,
  type Signed,
  signApproval,
  verifyApproval,
} from "../../../src/session/approval-signature";

const signed: Signed = {
  session: "sess_sig",
  approvalId: "appr_sig",
  callId: "toolu_sig",
  name: "send_email",
  input: { to: "a@example.com", body: { text: "hi", cc: ["b@example.com"] } },
};

/** A key source for a new key, and how often it was asked for. */
function keySource(): { key: () => Promise<CryptoKey>; asked: () => number } {
  const key = importKeyText(newKeyText());
  let asked = 0;
  return {
    key: () => {
      asked++;
      return key;
    },
    asked: () => asked,
  };
}

describe("an approval signature", () => {
  it("verifies for the session, approval, call, name and input it was made for, the input's keys in any order", async () => {
    const { key } = keySource();
    const signature = await signApproval(key, signed);
    const reordered = { ...signed, input: { body: { cc: ["b@example.com"], text: "hi" }, to: "a@example.com" } };
    expect(await verifyApproval(key, signature, reordered)).toBe(true);
  });

  it.each([
    ["session", { session: "sess_other" }],
    ["approval", { approvalId: "appr_other" }],
    ["call", { callId: "toolu_other" }],
    ["tool name", { name: "delete_email" }],
    ["input", { input: { to: "a@example.com", body: { text: "hi!", cc: ["b@example.com"] } } }],
  ])("is refused for another %s", async (_what, other) => {
    const { key } = keySource();
    const signature = await signApproval(key, signed);
    expect(await verifyApproval(key, signature, { ...signed, ...other })).toBe(false);
  });

  it("is refused under another key", async () => {
    const signature = await signApproval(keySource().key, signed);
    expect(await verifyApproval(keySource().key, signature, signed)).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["not base64url", "not+base64/url="],
    ["over 200 characters", "A".repeat(201)],
  ])("is refused, without asking for the key, when %s", async (_what, signature) => {
    const source = keySource();
    expect(await verifyApproval(source.key, signature, signed)).toBe(false);
    expect(source.asked()).toBe(0);
  });
});
