-- `model.capabilities.native_tool_search` now decides the Anthropic projection (deferred tools with
-- defer_loading and tool_reference answers; without it, loaded schemas go in tools[]). Until now every
-- Anthropic agent got tool search whatever the flag said, and the flag defaulted to false: Anthropic agents
-- stored before this migration keep exactly what they had. The epoch bump makes sessions re-read their config.
UPDATE agents
SET config = json_set(config, '$.model.capabilities.native_tool_search', json('true'))
WHERE json_extract(config, '$.model.provider') = 'anthropic';
UPDATE agent_epoch SET epoch = epoch + 1 WHERE id = 1;
