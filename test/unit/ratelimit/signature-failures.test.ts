// The failed-signature limit's pure parts (src/ratelimit/signature-failures.ts): whose allowance a caller's address
// spends (`signatureSubject`), and what a limiter that cannot answer does to a signed request (it is checked).
import { describe, expect, it } from "vitest";
import type { WorkerEnv } from "../../../src/http/types";
import { signatureSubject, withinSignatureFailureLimit } from "../../../src/ratelimit/signature-failures";

describe("the subject an address spends the allowance of", () => {
  it("is the IPv4 address itself", () => {
    expect(signatureSubject("203.0.113.7")).toBe("sig:203.0.113.7");
    expect(signatureSubject("203.0.113.8")).not.toBe(signatureSubject("203.0.113.7"));
  });

  it("is the /64 of an IPv6 address, however it is written, so one subscriber's addresses share it", () => {
    const subject = signatureSubject("2001:db8:a:b::1");
    expect(subject).toBe("sig:2001:db8:a:b::/64");
    expect(signatureSubject("2001:DB8:A:B:ffff:1:2:3")).toBe(subject);
    expect(signatureSubject("2001:db8:a:c::1")).not.toBe(subject);
  });

  it("is one shared subject without a usable cf-connecting-ip, so those callers are limited too", () => {
    const shared = signatureSubject(undefined);
    expect(signatureSubject("not an address")).toBe(shared);
    expect(signatureSubject("]::1[")).toBe(shared);
    expect(signatureSubject("203.0.113.7")).not.toBe(shared);
  });
});

describe("a limiter that cannot answer", () => {
  it("fails open: the signature is still checked and its answer given", async () => {
    const env = {
      RATE_LIMITER: { getByName: () => ({ take: async () => Promise.reject(new Error("limiter down")) }) },
    } as unknown as WorkerEnv;
    const checked = await withinSignatureFailureLimit(
      env,
      () => {},
      "sig:203.0.113.7",
      async () => ({
        ok: true,
        value: "verified",
      }),
    );
    expect(checked).toBe("verified");
  });
});
