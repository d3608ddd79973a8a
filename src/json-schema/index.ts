/**
 * JSON Schema for the whole service, with one error format (`SchemaIssue`). Two engines for two kinds
 * of schema: the API's own fixed schemas are compiled at build time by Ajv (`validateFixed`); schemas
 * first seen at run time — tool inputs, `json_schema`, MCP — are interpreted by @cfworker/json-schema
 * (`compileStrict`, `compileDeclared`, `compileLenient`), their patterns run by re2js in linear time. A foundation layer: of the service's it imports only
 * model/json and storage/fit's text helpers.
 */
export { type CompiledSchema, type CompileResult, compileDeclared, compileLenient, compileStrict } from "./compile";
export { formatIssues, issueLine, issueLines, type SchemaIssue, type SchemaResult } from "./issue";
export { localRefTarget, MAX_SHAPE_DEPTH } from "./local-ref";
export { showKey } from "./reduce-issues";
export { type FixedSchemaName, validateFixed } from "./validate-fixed";
