-- Switchboard control plane (D1). See docs/STORAGE.md.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  name TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant);

CREATE TABLE agents (
  name TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE sessions (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  agent TEXT NOT NULL,
  metadata TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant, id)
);
CREATE INDEX sessions_tenant_created ON sessions (tenant, created_at);
