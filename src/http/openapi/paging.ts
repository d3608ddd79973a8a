/**
 * The query parameters of the list routes: a page size (`limit`, with the bounds and default its route enforces)
 * and a cursor (`after`) for each way a list is paged.
 */

/** The page size of a list route: the bounds and default its route enforces (routes/sessions.ts). */
const limit = (maximum: number, fallback: number) => ({
  name: "limit",
  in: "query",
  schema: { type: "integer", minimum: 1, maximum, default: fallback },
  description: "Page size",
});
/** Sessions are paged by id. */
export const SESSIONS_PAGE = [
  limit(200, 50),
  {
    name: "after",
    in: "query",
    schema: { type: "string" },
    description: "Cursor: the `next` of the previous page (a session id)",
  },
];
/** Agents are paged by name, few at a time (a config may take 1.9 MB). */
export const AGENTS_PAGE = [
  limit(100, 20),
  {
    name: "after",
    in: "query",
    schema: { type: "string" },
    description: "Cursor: the `next` of the previous page (an agent name)",
  },
];
/** Messages and events are paged by seq (and bytes: PAGE_BUDGET_BYTES). */
export const SEQ_PAGE = [
  limit(1000, 100),
  {
    name: "after",
    in: "query",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
    description: "Cursor: only items with a greater `seq`; the `next` of the previous page",
  },
];
