/**
 * Cursor pagination of stored listings: `pageOf` cuts a page by count, `pageEnd` by count and bytes (GET /messages,
 * /events, /v1/agents, whose rows may each take megabytes). Either way a page's `next` is its last row's key when
 * rows follow it, so a client reads everything by passing `next` as `after` until it is null.
 */
import { headWithin } from "./fit";

/**
 * Cursor pagination: callers fetch `limit + 1` rows; the extra row only tells
 * whether there is a next page, whose cursor is the last kept row's key.
 */
export function pageOf<T, K>(rows: T[], limit: number, key: (row: T) => K): { items: T[]; next: K | null } {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, next: more && last !== undefined ? key(last) : null };
}

/**
 * Cursor pagination bounded by bytes as well as count. `sized`: the keys and stored sizes of the rows after the
 * cursor, in order, `limit + 1` of them when there are that many (read by a query that reads each value's size,
 * `octet_length`, not the value). A page holds at most `limit` of them, and no more than fit in `maxBytes`
 * together, but always the first: `count` rows up to `last` (null: no rows at all), `more` when rows follow, so its
 * `next` is `last` exactly as for a page `pageOf` cut by count. The caller then reads the page's rows up to `last`.
 */
export function pageEnd<K>(
  sized: ReadonlyArray<{ key: K; bytes: number }>,
  limit: number,
  maxBytes: number,
): { last: K; count: number; more: boolean } | null {
  const fit = headWithin(sized.slice(0, limit), maxBytes, (row) => row.bytes).length;
  const count = Math.min(sized.length, Math.max(1, fit));
  const last = sized[count - 1];
  return last === undefined ? null : { last: last.key, count, more: count < sized.length };
}
