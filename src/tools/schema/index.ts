export {
  type CompiledSchema,
  type CompileOptions,
  type CompileResult,
  compileLenient,
  compileStrict,
  DEFAULT_MAX_SCHEMA_BYTES,
  formatIssues,
  MAX_ISSUES,
  MAX_SCHEMA_DEPTH,
  type ValidationIssue,
  type ValidationResult,
} from "./compile";
