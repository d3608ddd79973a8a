-- The agent-config epoch's floor (see src/d1/agents.ts and docs/STORAGE.md): every session copy of an agent read
-- at an epoch below it is read again once. Code from before agent_versions (0010) bumps the epoch without setting a
-- version, and an agent it deleted before 0010 has no version at all: a session current at an earlier epoch would see
-- a later one, its agent not listed above its copy, and keep the old config (or answer for a deleted agent) for ever.
-- The next change that sets a version raises the floor to the epoch when no version reaches it; until then the epoch
-- itself is the floor as the workers read it. This migration bumps the epoch by one, an epoch move no version
-- explains, and sets the floor to it: every copy made before it (before 0010, or by code of either kind since) is
-- read again once. Workers no longer bound the changes they read by an hour below the epoch (0010's note): they read
-- the newest 33 versions, whatever their age.
ALTER TABLE agent_epoch ADD COLUMN floor INTEGER NOT NULL DEFAULT 0;
UPDATE agent_epoch SET epoch = epoch + 1, floor = epoch + 1 WHERE id = 1;
