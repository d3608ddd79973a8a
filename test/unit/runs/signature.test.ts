// Standard Webhooks signatures (src/runs/signature.ts): verifying what the reference library signs, checking the
// headers before any body is read, the same work for every refusal, and signing deliveries and callbacks it verifies.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import {
  checkHeaders,
  MAX_WEBHOOK_SECRETS,
  signHeaders,
  signingSecret,
  TOLERANCE_S,
  verifySigned,
} from "../../../src/runs/signature";

const secret = () => `whsec_${randomBytes(24).toString("base64")}`;

function signed(s: string, body: string, at = new Date()) {
  const id = `msg_${randomBytes(6).toString("hex")}`;
  return { id, timestamp: String(Math.floor(at.getTime() / 1000)), signature: new Webhook(s).sign(id, at, body) };
}

describe("verifySigned (Standard Webhooks)", () => {
  it("accepts what the reference library signs, with any of the configured secrets", () => {
    const [a, b] = [secret(), secret()];
    expect(verifySigned([a, b], signed(b, '{"x":1}'), '{"x":1}')).toEqual({ ok: true });
    expect(verifySigned([a, b], signed(a, '{"x":1}'), '{"x":1}')).toEqual({ ok: true });
    expect(verifySigned([a], signed(b, '{"x":1}'), '{"x":1}').ok).toBe(false);
  });

  it("accepts a header carrying several signatures when one matches", () => {
    const s = secret();
    const h = signed(s, "{}");
    expect(verifySigned([s], { ...h, signature: `v1,AAAA ${h.signature} v2,zzz` }, "{}")).toEqual({ ok: true });
  });

  it("refuses a changed body, id or timestamp, and timestamps outside 5 minutes", () => {
    const s = secret();
    const h = signed(s, "{}");
    expect(verifySigned([s], h, "{ }").ok).toBe(false);
    expect(verifySigned([s], { ...h, id: "other" }, "{}").ok).toBe(false);
    expect(verifySigned([s], { ...h, timestamp: String(Number(h.timestamp) + 1) }, "{}").ok).toBe(false);
    const old = signed(s, "{}", new Date(Date.now() - 301_000));
    expect(verifySigned([s], old, "{}")).toEqual({ ok: false, message: expect.stringContaining("old") });
    const future = signed(s, "{}", new Date(Date.now() + 301_000));
    expect(verifySigned([s], future, "{}")).toEqual({ ok: false, message: expect.stringContaining("future") });
    expect(verifySigned([s], { ...h, timestamp: "soon" }, "{}").ok).toBe(false);
  });

  it("skips a secret that is not base64 instead of failing", () => {
    const s = secret();
    expect(verifySigned(["not*base64*secret", s], signed(s, "{}"), "{}")).toEqual({ ok: true });
  });

  it("tries as many secrets for a bad signature whether the agent has none, one or ten", () => {
    const body = "x".repeat(1024);
    const forged = signed(secret(), body);
    // Each verification by the library is one HMAC over the body (its `sign`).
    const hmacs = vi.spyOn(Webhook.prototype, "sign");
    const counted = (secrets: string[]) => {
      hmacs.mockClear();
      expect(verifySigned(secrets, forged, body).ok).toBe(false);
      return hmacs.mock.calls.length;
    };
    const counts = [counted([]), counted([secret()]), counted(Array.from({ length: 10 }, secret))];
    hmacs.mockRestore();
    expect(counts).toEqual([MAX_WEBHOOK_SECRETS, MAX_WEBHOOK_SECRETS, MAX_WEBHOOK_SECRETS]);
  });

  it("signs deliveries with the first secret the library can decode", () => {
    const s = secret();
    expect(signingSecret(["my-secret-value!", s, secret()])).toBe(s);
    expect(signingSecret(["my-secret-value!"])).toBeUndefined();
  });

  it("signs callbacks the reference library verifies", () => {
    const s = secret();
    const body = '{"type":"run.completed"}';
    const headers = signHeaders(s, "run_1", body) as Record<string, string>;
    expect(new Webhook(s).verify(body, headers)).toEqual({ type: "run.completed" });
  });
});

describe("checkHeaders (before the body is read)", () => {
  it("refuses a timestamp where the library's own check does: TOLERANCE_S is its tolerance", () => {
    const s = secret();
    for (const age of [TOLERANCE_S - 5, TOLERANCE_S + 5, -(TOLERANCE_S - 5), -(TOLERANCE_S + 5)]) {
      const h = signed(s, "{}", new Date(Date.now() - age * 1000));
      const headers = { "webhook-id": h.id, "webhook-timestamp": h.timestamp, "webhook-signature": h.signature };
      let library = true;
      try {
        new Webhook(s).verify("{}", headers);
      } catch {
        library = false;
      }
      expect(checkHeaders(h).ok, `${age} s old`).toBe(library);
    }
  });

  it("refuses a signature header with no v1 HMAC as a signature that matches no secret", () => {
    const s = secret();
    const h = signed(s, "{}");
    const none = verifySigned([secret()], h, "{}");
    expect(checkHeaders({ ...h, signature: "v1,AAAA v1a,zzz" })).toEqual(none);
    expect(checkHeaders(h)).toEqual({ ok: true });
  });
});
