/**
 * The build-time engine: validates a value against one of the API's own fixed schemas (request bodies,
 * agent config, built-in tool inputs — the table is `http/fixed-schemas.ts`) with the validator Ajv
 * generated for it at build time (`npm run schemas`). The generated code is plain JavaScript in the
 * bundle, so nothing is compiled at run time (workerd refuses eval), and it is the fastest validator on
 * the turn path. Each validator stops at the first failure; its errors become the same issues the
 * run-time engine reports.
 */
import { ajvIssues } from "./ajv-issues";
import { fixedValidators } from "./generated/fixed-validators.js";
import type { SchemaResult } from "./issue";
import { reduceIssues } from "./reduce-issues";

/** The name of a fixed schema (a key of `FIXED_SCHEMAS`). */
export type FixedSchemaName = keyof typeof fixedValidators;

export function validateFixed(name: FixedSchemaName, value: unknown): SchemaResult {
  const validator = fixedValidators[name];
  if (validator(value)) return { valid: true };
  return { valid: false, ...reduceIssues(ajvIssues(validator.errors ?? [], value), value) };
}
