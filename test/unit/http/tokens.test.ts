// Session tokens (src/http/tokens.ts): minted claims read back, with the session's incarnation; expired, tampered,
// malformed and other-secret tokens refused.
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { mintToken, type TokenClaims, verifyToken } from "../../../src/http/tokens";

const env = (vars: Partial<Env>): Env => vars as Env;
const now = Math.floor(Date.now() / 1000);
const claims = (over: Partial<TokenClaims> = {}): TokenClaims => ({
  v: 1,
  ten: "acme",
  ses: "s1",
  act: ["read", "send"],
  kid: "key_1",
  iat: now,
  exp: now + 900,
  jti: "j1",
  ...over,
});

/** Changes the signature's first character: its last one also holds base64url padding bits that decode alike. */
function flipSigChar(token: string): string {
  const at = token.lastIndexOf(".") + 1;
  const flipped = token[at] === "A" ? "B" : "A";
  return token.slice(0, at) + flipped + token.slice(at + 1);
}

describe("session tokens", () => {
  const e = env({ SWITCHBOARD_ADMIN_KEY: "admin-secret" });

  it("round-trips claims", async () => {
    const token = await mintToken(e, claims());
    expect(token.startsWith("sbt_")).toBe(true);
    expect(await verifyToken(e, token)).toEqual({ ok: true, claims: claims() });
  });

  it("carries the incarnation of the session it was minted for", async () => {
    const token = await mintToken(e, claims({ inc: "inc_1" }));
    expect(await verifyToken(e, token)).toEqual({ ok: true, claims: claims({ inc: "inc_1" }) });
  });

  it("refuses a token whose incarnation is not a string as malformed", async () => {
    const token = await mintToken(e, { ...claims(), inc: 7 } as unknown as TokenClaims);
    expect(await verifyToken(e, token)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses an expired token", async () => {
    const token = await mintToken(e, claims({ exp: now - 1 }));
    expect(await verifyToken(e, token)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a tampered signature or payload", async () => {
    const token = await mintToken(e, claims());
    expect((await verifyToken(e, flipSigChar(token))).ok).toBe(false);
    const [body, sig] = token.slice(4).split(".");
    const forged = btoa(JSON.stringify(claims({ ses: "other", act: ["send", "stream", "read"] })))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replaceAll("=", "");
    expect(await verifyToken(e, `sbt_${forged}.${sig}`)).toEqual({ ok: false, reason: "bad_signature" });
    expect((await verifyToken(e, `sbt_${body}`)).ok).toBe(false);
    expect((await verifyToken(e, `sbt_${body}.${sig}.x`)).ok).toBe(false);
    expect((await verifyToken(e, "sbt_")).ok).toBe(false);
    expect((await verifyToken(e, `sbt_${"a".repeat(5000)}.b`)).ok).toBe(false);
  });

  it("does not verify under another secret (admin key rotation, explicit secret)", async () => {
    const token = await mintToken(e, claims());
    expect((await verifyToken(env({ SWITCHBOARD_ADMIN_KEY: "rotated" }), token)).ok).toBe(false);
    expect(
      (await verifyToken(env({ SWITCHBOARD_ADMIN_KEY: "admin-secret", SWITCHBOARD_TOKEN_SECRET: "s" }), token)).ok,
    ).toBe(false);
    expect((await verifyToken(env({}), token)).ok).toBe(false);
  });

  it("an explicit secret signs and verifies on its own", async () => {
    const e2 = env({ SWITCHBOARD_TOKEN_SECRET: "0123456789abcdef0123456789abcdef" });
    expect((await verifyToken(e2, await mintToken(e2, claims()))).ok).toBe(true);
  });
});
