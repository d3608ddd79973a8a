/**
 * The one structured logger: a level, an event name and fields become one
 * JSON line (`{"level", "msg": event, ...fields}`) on the console, which is
 * what `wrangler tail` and Workers log drains read. `error` lines go to
 * console.error, `warn` to console.warn, the rest to console.log. A thrown
 * value goes in as its text (`error: String(e)`; an Error would serialise to `{}`).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

type LogFields = Record<string, unknown>;

/** Writes one structured line. */
export function log(level: LogLevel, event: string, fields: LogFields = {}): void {
  const line = JSON.stringify({ level, msg: event, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
