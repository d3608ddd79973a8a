/**
 * What a request repeated with its Idempotency-Key is compared by (`BodyHashes`): the same body is the same JSON
 * value, whatever its key order or whitespace. `keyedBodyHashes` hashes a body's canonical JSON text
 * (model/json.ts), the hash stored with what the request creates; `sameBody` tells whether a stored hash is that
 * body's. A signed webhook's body is hashed as its bytes instead (http/routes/runs.ts): its signature fixes them.
 */
import { canonical } from "../model/json";
import { sha256Hex } from "./sha256";

export interface BodyHashes {
  /** Stored with what the request creates; null for a request that brought none (it matches a record that has none). */
  hash: string | null;
  /**
   * The hash stored before bodies were hashed as canonical JSON text (of the body's JSON text as sent), for a
   * record kept from then: its body is this one when its hash is this.
   */
  earlier?: string | undefined;
}

/**
 * The hashes of a parsed body; `asSent` is its JSON text as it was hashed before (its bytes, or the parsed body
 * stringified).
 */
export async function keyedBodyHashes(body: unknown, asSent: string): Promise<{ hash: string; earlier: string }> {
  const [hash, earlier] = await Promise.all([sha256Hex(canonical(body)), sha256Hex(asSent)]);
  return { hash, earlier };
}

/** Whether `stored`, the hash kept with an earlier request's record, is this body's. */
export function sameBody(stored: string | null, body: BodyHashes): boolean {
  return stored === body.hash || (body.earlier !== undefined && stored === body.earlier);
}
