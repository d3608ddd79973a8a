/**
 * The one transaction helper of the Durable Object's SQLite: `transactionSync`
 * (its body is synchronous SQL only), plus what a rollback must also undo in
 * memory. When the body throws, SQLite rolls back; `onRollback` then drops the
 * in-memory caches that may hold what was just rolled back (the session's
 * HistoryStore), and the error goes on to the caller.
 */
export function transaction<T>(storage: DurableObjectStorage, body: () => T, onRollback?: () => void): T {
  try {
    return storage.transactionSync(body);
  } catch (e) {
    onRollback?.();
    throw e;
  }
}
