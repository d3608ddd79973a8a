/** The operation of routes/health.ts the document describes: liveness (`GET /healthz`), the one without auth. */
import { jsonOf } from "./content";

export const health = {
  operationId: "health",
  summary: "Liveness",
  responses: { "200": jsonOf({ type: "object", properties: { ok: { const: true } } }, "ok") },
};
