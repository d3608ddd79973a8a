/**
 * The answer to a request that was admitted before its session was deleted (`deleted`): the work that awaited
 * network I/O found the delete tombstone moved (session-engine.ts `stale`) and wrote nothing.
 */
import { failure } from "../model/errors";

export function deleted() {
  return failure("not_found", "session not found (it was deleted)");
}
