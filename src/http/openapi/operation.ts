/**
 * An operation of the document (`op`): bearer auth unless it says otherwise, and the error answers every API route
 * may give, each a reference to a response of components.ts (`errorResponse` for an operation's own).
 */
import type { Json } from "./content";

export const errorResponse = { $ref: "#/components/responses/Error" };
/**
 * A 429: `rate_limited` (a key's or token's rate, or a signed webhook request's address past its failed signature
 * checks; or a run's `run_queue_full`), with the seconds to wait.
 */
const rateLimitedResponse = { $ref: "#/components/responses/RateLimited" };
/**
 * A 503: `database_unavailable` (D1 fails what the route reads or writes) or `directory_unavailable` (D1 cannot be read
 * for a credential, origin or secret), with the seconds to wait; minting a token, `tokens_unavailable`.
 */
const unavailableResponse = { $ref: "#/components/responses/Unavailable" };

/** An operation: bearer auth (unless `extra` says otherwise), and the error answers every API route may give. */
export function op(operationId: string, summary: string, responses: Json, extra: Json = {}): Json {
  return {
    operationId,
    summary,
    security: [{ bearer: [] }],
    ...extra,
    responses: {
      ...responses,
      // An operation may describe its own 400 (the codes it adds to invalid_request).
      "400": responses["400"] ?? errorResponse,
      "401": errorResponse,
      "403": errorResponse,
      "404": errorResponse,
      "429": rateLimitedResponse,
      // internal_error: an unexpected failure. An operation may describe its own 500 (a code it adds).
      "500": responses["500"] ?? errorResponse,
      // database_unavailable: D1 fails a call the route makes (d1/unavailable.ts); directory_unavailable: a
      // credential, origin or webhook secret D1 cannot be read for (directory.ts).
      "503": unavailableResponse,
      // Every body is read under a byte cap (validate.ts readBody): over it → 413 payload_too_large.
      ...(extra.requestBody ? { "413": errorResponse } : {}),
    },
  };
}
