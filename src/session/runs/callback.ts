/**
 * Webhook delivery of a run's result to its callback_url: `deliver` makes one signed POST attempt and reports it
 * as an AttemptOutcome (it never throws; `retryable: false` when trying again cannot help). `callbackBody` is
 * the Standard Webhooks body. Retries and their timing belong to the caller (deliveries.ts).
 */
import { signHeaders, signingSecret } from "../../runs/signature";
import { checkOutboundUrl } from "../../tools/outbound";
import { CALLBACK_TIMEOUT_MS, type RunView } from "./types";

interface AttemptOutcome {
  status: number | null;
  error: string | null;
  delivered: boolean;
  /** false: trying again cannot help (URL refused by policy, no signing secret). */
  retryable: boolean;
}

/** The callback body, in the Standard Webhooks event shape `{type, timestamp, data}`. */
function callbackBody(view: RunView, at = new Date()): string {
  return JSON.stringify({ type: `run.${view.status}`, timestamp: at.toISOString(), data: view });
}

/**
 * One delivery attempt: the run's result POSTed to its callback_url, signed
 * with the agent's first usable webhook secret (`signingSecret`). The `webhook-id` is the run id, the
 * same on every attempt, so receivers can drop duplicates. Redirects are not
 * followed (a redirect could lead past the outbound URL policy).
 */
export async function deliver(
  url: string,
  secrets: readonly string[],
  view: RunView,
  allowPrivate: boolean,
  webhookId = view.run_id,
): Promise<AttemptOutcome> {
  const refused = checkOutboundUrl(url, allowPrivate);
  if (refused) return { status: null, error: `callback_url refused: ${refused}`, delivered: false, retryable: false };
  const body = callbackBody(view);
  const secret = signingSecret(secrets);
  const signed = secret ? signHeaders(secret, webhookId, body) : null;
  if (!signed) {
    return {
      status: null,
      error: "the agent has no usable webhook secret to sign with",
      delivered: false,
      retryable: false,
    };
  }
  try {
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/json", "user-agent": "Switchboard-Webhooks/1", ...signed },
      body,
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    // Only the status matters; the body is drained so the connection can be reused.
    await res.body?.cancel().catch(() => {});
    const delivered = res.status >= 200 && res.status < 300;
    return { status: res.status, error: delivered ? null : `HTTP ${res.status}`, delivered, retryable: true };
  } catch (e) {
    const timeout = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
    return {
      status: null,
      error: timeout ? `no answer within ${CALLBACK_TIMEOUT_MS} ms` : String(e),
      delivered: false,
      retryable: true,
    };
  }
}
