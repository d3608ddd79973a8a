// Random identifiers in the shapes the real providers use.
import { randomBytes, randomInt } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function base62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** `toolu_` + 24 base62 chars (real ids start with `01`). */
export const toolUseId = (): string => `toolu_01${base62(22)}`;
export const messageId = (): string => `msg_01${base62(22)}`;
export const requestId = (): string => `req_011C${base62(20)}`;
/** `call_` + 24 base62 chars. */
export const toolCallId = (): string => `call_${base62(24)}`;
export const completionId = (): string => `chatcmpl-${base62(29)}`;
export const fingerprint = (): string => `fp_${randomBytes(5).toString("hex")}`;
/** An opaque thinking signature (base64, like the real ones). */
export const thinkingSignature = (): string => `Eq${randomBytes(96).toString("base64")}`;
