// b64url and fromB64url (src/crypto/base64url.ts): unpadded URL-safe encoding; text in any other alphabet reads as
// null.
import { describe, expect, it } from "vitest";
import { b64url, fromB64url } from "../../../src/crypto/base64url";

describe("base64url", () => {
  it("round-trips every byte value, unpadded and in the URL-safe alphabet", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = b64url(bytes);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(fromB64url(text)).toEqual(bytes);
    expect(b64url(new Uint8Array([0xfb, 0xff]))).toBe("-_8");
  });

  it("reads text that is not base64url as null (a token or signature with +, / or = is refused)", () => {
    expect(fromB64url("-_8")).toEqual(new Uint8Array([0xfb, 0xff]));
    for (const bad of ["+/8", "-_8=", "a b", "A"]) expect(fromB64url(bad)).toBeNull();
  });
});
