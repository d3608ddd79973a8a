-- Webhook-triggered runs (src/runs, src/http/routes/runs.ts). See docs/STORAGE.md.
-- D1 keeps what never changes about a run (who, which agent and session, the
-- request); the session Durable Object keeps its state and result. The partial
-- unique index is the arbiter for repeated webhook-ids, even when duplicates
-- arrive at the same time: only one INSERT wins.
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  agent TEXT NOT NULL,
  session_id TEXT NOT NULL,
  idempotency_key TEXT,
  body_hash TEXT NOT NULL,
  auth TEXT NOT NULL,
  request TEXT NOT NULL,
  created_at TEXT NOT NULL,
  accepted_at TEXT
);
CREATE UNIQUE INDEX runs_idem ON runs (tenant, agent, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX runs_tenant_created ON runs (tenant, created_at);
