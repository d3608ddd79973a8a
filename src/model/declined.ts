/**
 * How a declined call's tool result is worded: `declinedText` writes it (`the user declined: <reason>`, "no reason
 * given" standing in for an empty reason) and `readDeclined` reads the reason back. The server stores it as the
 * call's error result (session/approval-answers.ts) and the web client recognises it (web/src/from-history.ts).
 */

const PREFIX = "the user declined: ";
const NO_REASON = "no reason given";

/** The result text of a call the person (or the service on their behalf) declined, with the reason given. */
export function declinedText(reason: string | undefined): string {
  return `${PREFIX}${reason?.trim() || NO_REASON}`;
}

/** `declinedText` read back: null when `text` is not a declined call's result, else its reason (undefined: none). */
export function readDeclined(text: string): { reason: string | undefined } | null {
  if (!text.startsWith(PREFIX)) return null;
  const reason = text.slice(PREFIX.length);
  return { reason: reason === NO_REASON ? undefined : reason };
}
