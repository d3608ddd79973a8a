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
