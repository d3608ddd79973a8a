/**
 * The operations of routes/sessions.ts: a tenant creates, lists, reads and deletes its sessions, reads a session's
 * history and events, and compacts or clears it.
 */
import { PAGE_BUDGET_BYTES } from "../../storage/limits";
import { body, jsonOf, ref } from "./content";
import { errorResponse, op } from "./operation";
import { SEQ_PAGE, SESSIONS_PAGE } from "./paging";
import { SESSION } from "./parameters";

export const createSession = op(
  "createSession",
  "Create a session",
  {
    "200": jsonOf(ref("SessionCreated"), "A retried create: the session, as its create answered it"),
    "201": jsonOf(ref("SessionCreated"), "Created"),
    "409": errorResponse,
  },
  {
    requestBody: body("CreateSessionBody"),
  },
);
export const listSessions = op(
  "listSessions",
  "List the tenant's sessions",
  { "200": jsonOf(ref("SessionList"), "A page") },
  {
    parameters: SESSIONS_PAGE,
  },
);
export const getSession = op(
  "getSession",
  "Session state",
  { "200": jsonOf(ref("SessionState"), "State") },
  { parameters: [SESSION] },
);
export const deleteSession = op(
  "deleteSession",
  "Delete a session and everything in it",
  { "200": jsonOf(ref("Deleted"), "Deleted") },
  {
    parameters: [SESSION],
  },
);
export const listMessages = op(
  "listMessages",
  `The stored history, oldest first; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of stored messages, so it may hold fewer than limit: follow next until it is null`,
  { "200": jsonOf(ref("MessagesPage"), "A page") },
  {
    parameters: [SESSION, ...SEQ_PAGE],
  },
);
export const compactSession = op(
  "compactSession",
  "Summarise the history before a turn boundary now (README: Long sessions)",
  { "200": jsonOf(ref("Compaction"), "Compacted"), "409": errorResponse },
  { parameters: [SESSION] },
);
/**
 * A clear's 500 (this route's and the admin's): besides `internal_error`, `session_unreadable`, the rebuild of a
 * session whose storage could not be loaded refused because its own record cannot be read either.
 */
export const clearFailed = {
  ...errorResponse,
  description:
    "`session_unreadable`: the session's storage could not be loaded, which a clear rebuilds, and its own record " +
    "cannot be read either, so it cannot be kept; nothing is changed, and DELETE removes the session. Otherwise " +
    "`internal_error`",
};
export const clearSession = op(
  "clearSession",
  "Empty the history and the loaded tools",
  { "200": jsonOf(ref("Cleared"), "Cleared"), "409": errorResponse, "500": clearFailed },
  { parameters: [SESSION] },
);
export const listEvents = op(
  "listEvents",
  `Typed session events, oldest first; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of stored events, so it may hold fewer than limit: follow next until it is null`,
  { "200": jsonOf(ref("EventsPage"), "A page") },
  {
    parameters: [SESSION, ...SEQ_PAGE],
  },
);
