/**
 * Entry point of tool-call references (chained arguments: a `{"$tool", "$path"}` value in a call's arguments
 * stands for part of an earlier tool result): re-exports path parsing, `resolveRefs`, the sentinel schema and
 * prompt, and `widenSchema`.
 */
export { formatPath, type PathSegment, parsePath } from "./path";
export { type Lookup, type LookupResult, resolveRefs } from "./resolve";
export { containsRefs, REF_SCHEMA, REFS_PROMPT } from "./sentinel";
export { widenSchema } from "./widen";
