-- Per-key rate limits and per-tenant CORS origins. See docs/STORAGE.md.

-- NULL: the service default (SWITCHBOARD_RATE_LIMIT_PER_MIN); 0: unlimited; N: N requests per minute.
ALTER TABLE api_keys ADD COLUMN rate_limit_per_min INTEGER;

-- Browser origins a tenant lets call its sessions. The origin index serves the
-- preflight rule (an origin is pre-approved when any tenant lists it).
CREATE TABLE cors_origins (
  tenant TEXT NOT NULL,
  origin TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant, origin)
);
CREATE INDEX cors_origins_origin ON cors_origins (origin);
