/**
 * Fresh ids of the things the service mints (sessions, turns, runs, keys, approvals): `<prefix>_` and a random
 * UUID's 32 hex digits.
 */

/** A new id: `newId("ses")` is `ses_` and 32 lowercase hex digits. */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
}
