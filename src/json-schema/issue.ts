/**
 * The one error format of JSON-Schema validation, whichever engine ran: a list of issues, each naming
 * where in the value (a JSON pointer), which schema keyword failed, and what to do about it in plain
 * words. HTTP 400 bodies, tool_result errors, structured-output retries and trace attributes all render
 * these same issues (`issueLine`, `formatIssues`, `http/validate.ts`).
 */

/** One problem with a value, phrased for a model (or a person) to fix it. */
export interface SchemaIssue {
  /** JSON pointer into the value ("/items/0/id"), or "(root)" for the value itself. */
  path: string;
  /** The JSON Schema keyword that failed ("type", "required", "additionalProperties", …). */
  keyword: string;
  message: string;
}

/** What validating one value gives, from either engine. */
export type SchemaResult = { valid: true } | { valid: false; issues: SchemaIssue[]; omitted: number };

/** A model repairs a call better from a few precise issues than from a wall of them. */
export const MAX_ISSUES = 10;

/** One issue as one line of text: `/items/0/qty: must be at least 1 (got 0)`. */
export function issueLine(issue: SchemaIssue): string {
  return `${issue.path}: ${issue.message}`;
}

/** The issues of a result as lines (none when the value is valid). */
export function issueLines(result: SchemaResult): string[] {
  return result.valid ? [] : result.issues.map(issueLine);
}

/** Renders issues as the text of an is_error tool_result: one line per issue. */
export function formatIssues(issues: readonly SchemaIssue[], omitted = 0): string {
  const lines = issues.map((i) => `- ${issueLine(i)}`);
  if (omitted > 0) lines.push(`- …and ${omitted} more problem${omitted === 1 ? "" : "s"}`);
  return lines.join("\n");
}
