/**
 * The parameters more than one resource's operations take: a path parameter (`pathParam`), the session and agent
 * path parameters, and the schema of an `Idempotency-Key` or `webhook-id` header (`KEY_HEADER`).
 */
import { MAX_KEY_CHARS } from "../../storage/limits";

export const pathParam = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
export const SESSION = pathParam("id", "Session id");
export const AGENT = pathParam("agent", "Agent name");

/**
 * An `Idempotency-Key` or `webhook-id` header: 1..255 characters. Outside that an `Idempotency-Key` is `400`
 * (routes/turns.ts, routes/runs.ts, where a signed run's `webhook-id` is its key too) and a `webhook-id` fails the
 * signature check, `401` (runs/signature.ts).
 */
export const KEY_HEADER = { type: "string", minLength: 1, maxLength: MAX_KEY_CHARS } as const;
