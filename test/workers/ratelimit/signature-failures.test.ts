// The limit on failed webhook signature checks per caller address (src/ratelimit/signature-failures.ts), through
// the webhook routes: past SIGNATURE_FAILURES_PER_MIN failures an address is answered 429 before any HMAC, body or
// D1 read, whoever it signs for; only a check that ran and failed counts, and the limit is the address's alone
// (README "Webhook-triggered runs", docs/API.md).
import { describe, expect, it } from "vitest";
import { SIGNATURE_FAILURES_PER_MIN } from "../../../src/ratelimit/signature-failures";
import { uid } from "../helpers";
import { d1Runs, newSecret, runSetup, senderAddress, signedPost, signedRun } from "../runs-helpers";

const D1 = "x-debug-d1-statements";

/** A signed run request for an agent nobody has, its signature by a secret nobody holds: a failed check. */
function badSignature(address: string, o: { ts?: number; body?: string } = {}): Promise<Response> {
  return signedPost(`/v1/agents/${uid("nobody")}/runs`, newSecret(), { input: "x" }, { address, ...o });
}

/** Spends the address's whole allowance of failed checks, each answered 401 as any bad signature is. */
async function exhaust(address: string): Promise<void> {
  for (let i = 0; i < SIGNATURE_FAILURES_PER_MIN; i++) {
    const res = await badSignature(address);
    expect(res.status).toBe(401);
  }
}

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe("an address past its failed signature checks", () => {
  it("is answered 429 rate_limited with Retry-After, a good signature too, and nothing is read or recorded", async () => {
    const s = await runSetup();
    const address = senderAddress();
    await exhaust(address);
    const res = await signedRun(s, { input: "a good signature" }, { address });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get(D1)).toBe("0");
    expect(await code(res)).toBe("rate_limited");
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("does not limit another address signing for the same agent", async () => {
    const s = await runSetup();
    const limited = senderAddress();
    await exhaust(limited);
    expect((await signedRun(s, { input: "" }, { address: limited })).status).toBe(429);
    // An empty input: refused after the signature verified (400), so no run starts.
    expect((await signedRun(s, { input: "" }, { address: senderAddress() })).status).toBe(400);
  });

  it("is limited on the approvals route too: the allowance is the address's, not the route's", async () => {
    const address = senderAddress();
    await exhaust(address);
    const res = await signedPost(`/v1/runs/${uid("run")}/approvals`, newSecret(), { approvals: [] }, { address });
    expect(res.status).toBe(429);
  });
});

describe("what counts against an address", () => {
  it("a signature that verified does not count", async () => {
    const s = await runSetup();
    const address = senderAddress();
    // Twice the allowance of good signatures (each refused after the check: an empty input), then the allowance.
    for (let i = 0; i < 2 * SIGNATURE_FAILURES_PER_MIN; i++) {
      expect((await signedRun(s, { input: "" }, { address })).status).toBe(400);
    }
    await exhaust(address);
    expect((await badSignature(address)).status).toBe(429);
  });

  it("a request refused before the HMAC (a stale timestamp) does not count", async () => {
    const address = senderAddress();
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    for (let i = 0; i < 2 * SIGNATURE_FAILURES_PER_MIN; i++) {
      expect((await badSignature(address, { ts: stale })).status).toBe(401);
    }
    await exhaust(address);
    expect((await badSignature(address)).status).toBe(429);
  });

  it("a body over the cap (413, never verified) does not count", async () => {
    const address = senderAddress();
    const overCap = JSON.stringify({ input: "x".repeat(1024 * 1024) });
    for (let i = 0; i <= SIGNATURE_FAILURES_PER_MIN; i++) {
      expect((await badSignature(address, { body: overCap })).status).toBe(413);
    }
    await exhaust(address);
    expect((await badSignature(address)).status).toBe(429);
  });

  it("checks sent all at once: no more than the allowance is verified, the rest are 429", async () => {
    const address = senderAddress();
    const statuses = await Promise.all(
      Array.from({ length: SIGNATURE_FAILURES_PER_MIN + 5 }, () => badSignature(address).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(SIGNATURE_FAILURES_PER_MIN);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});
