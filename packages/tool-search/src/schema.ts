// JSON Schema of tool_search's input. Plain data; the worker validates it with code generated at build time (no eval).
// Out-of-range `max_results` and a `query` over QUERY_MAX_LENGTH fail validation; nothing is clamped. The default
// is applied by the caller (`withDefaults`, or `runToolSearch`), since the validator does not fill it in.

export const MAX_RESULTS_MIN = 1;
export const MAX_RESULTS_MAX = 20;
export const MAX_RESULTS_DEFAULT = 5;
/**
 * The longest `query`: room for a `select:` of max_results long names, or a long keyword query. Without it a
 * `select:` of thousands of names was resolved, and echoed, whole.
 */
export const QUERY_MAX_LENGTH = 2000;

export const TOOL_SEARCH_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      maxLength: QUERY_MAX_LENGTH,
      description:
        'Either "select:name_a,name_b" to load tools by exact name, or keywords describing the capability needed. ' +
        'Prefix a word with + to require it (e.g. "+github create issue").',
    },
    max_results: {
      type: "integer",
      minimum: MAX_RESULTS_MIN,
      maximum: MAX_RESULTS_MAX,
      default: MAX_RESULTS_DEFAULT,
      description: `Maximum number of tools to return (${MAX_RESULTS_MIN}-${MAX_RESULTS_MAX}, default ${MAX_RESULTS_DEFAULT}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
};

export interface ToolSearchInput {
  query: string;
  max_results?: number;
}

/** Fills the documented default of a validated tool_search input. */
export function withDefaults(input: ToolSearchInput): Required<ToolSearchInput> {
  return { query: input.query, max_results: input.max_results ?? MAX_RESULTS_DEFAULT };
}
