/**
 * Entry point of tool-call references (chained arguments: a `{"$tool", "$path"}` value in a call's arguments
 * stands for part of an earlier tool result): re-exports path parsing, `resolveRefs`, the sentinel schema and
 * prompt, and `widenSchema`.
 */
export { formatPath, type ParsedPath, type PathSegment, parsePath } from "./path";
export {
  DEFAULT_REF_LIMITS,
  type Lookup,
  type LookupResult,
  type RefLimits,
  type ResolveResult,
  resolveRefs,
} from "./resolve";
export { containsRefs, isRefSchema, REF_SCHEMA, REFS_PROMPT, type ToolRef } from "./sentinel";
export { widenSchema } from "./widen";
