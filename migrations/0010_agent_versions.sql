-- The version of each agent (see src/d1/agents.ts and docs/STORAGE.md): the agent-config epoch of its newest
-- change (created, replaced by a different config, deleted), kept after a delete, so the sessions of the agent
-- that changed re-read it and no other session does. Workers read the changes of the last hour (at most 32) with
-- the epoch, by version: hence the index. Every agent already stored starts at the current epoch, which no change
-- before this migration is above, so a session copy older than that is read again once.
CREATE TABLE agent_versions (name TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE INDEX agent_versions_version ON agent_versions (version);
INSERT INTO agent_versions (name, version) SELECT name, (SELECT epoch FROM agent_epoch WHERE id = 1) FROM agents;
