/**
 * The operations of routes/runs.ts: a webhook run started, read, and its approvals answered; two of them take a
 * Standard Webhooks signature instead of a bearer credential.
 */
import { body, jsonOf, ref } from "./content";
import { errorResponse, op } from "./operation";
import { AGENT, KEY_HEADER, pathParam } from "./parameters";

/** The Standard Webhooks headers of a signed request (the `webhookSignature` scheme). */
const WEBHOOK_HEADERS = [
  { name: "webhook-id", in: "header", schema: KEY_HEADER },
  { name: "webhook-timestamp", in: "header", schema: { type: "string" } },
  { name: "webhook-signature", in: "header", schema: { type: "string" } },
];

/**
 * The routes that also take a Standard Webhooks signature instead of a bearer credential (routes/runs.ts): either
 * requirement is enough.
 */
const BEARER_OR_SIGNED = [{ bearer: [] }, { webhookSignature: [] }];

export const startRun = op(
  "startRun",
  "Start a webhook run: a tenant key, or a Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature)",
  {
    "202": {
      ...jsonOf(ref("RunAccepted"), "Accepted; the session holds the run"),
      headers: {
        "x-run-replayed": {
          description: "`true` when this answers a repeated `webhook-id` (or `Idempotency-Key`): the same run.",
          schema: { const: "true" },
        },
      },
    },
    // 429 (every op's): also run_queue_full, the session already holds MAX_QUEUED_RUNS queued runs.
    "409": errorResponse,
    "422": errorResponse,
  },
  {
    parameters: [AGENT, ...WEBHOOK_HEADERS, { name: "Idempotency-Key", in: "header", schema: KEY_HEADER }],
    requestBody: body("RunBody"),
    security: BEARER_OR_SIGNED,
  },
);
export const getRun = op(
  "getRun",
  "Run status, result and callback attempts",
  {
    "200": jsonOf(ref("Run"), "The run"),
    // A run whose hand-off to its session never completed is handed over by this read (routes/runs.ts), and
    // refused as at admission when its session now belongs to another agent.
    "409": errorResponse,
  },
  {
    parameters: [pathParam("id", "Run id")],
  },
);
export const answerRunApprovals = op(
  "answerRunApprovals",
  "Approve or decline a run's tool calls waiting for a person: the admin key, an API key of the run's tenant, or (a run started by a signed webhook) a Standard Webhooks signature by one of the agent's secrets",
  {
    // routes/runs.ts always asks the session for JSON: a run's approver gets the result, never a stream.
    "200": jsonOf(ref("TurnResult"), "The resumed turn once it ends, or its state while something is still awaited"),
    "409": errorResponse,
  },
  {
    parameters: [pathParam("id", "Run id"), ...WEBHOOK_HEADERS],
    requestBody: body("ToolApprovalsBody"),
    security: BEARER_OR_SIGNED,
  },
);
