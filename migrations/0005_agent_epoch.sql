-- The agent-config epoch (see src/http/directory.ts and docs/STORAGE.md): one
-- counter bumped in the same batch as every agent PUT/DELETE. Workers pass
-- the epoch they know with each turn; a session object re-reads its agent's
-- config only when that epoch is newer than the one its cached copy was read at.
CREATE TABLE agent_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL);
INSERT INTO agent_epoch (id, epoch) VALUES (1, 1);
