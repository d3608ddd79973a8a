// Tool search for the `tool_search` built-in: exact `select:` lookups and ranked keyword search over a catalog.
// Pure code (no Node built-ins, no eval, no I/O), so the same module runs in workerd, in Node tests and in the bench.

import { parseSelect, selectTools } from "./query.ts";
import { MAX_RESULTS_DEFAULT, type ToolSearchInput } from "./schema.ts";
import type { ToolIndex } from "./tool-index.ts";

export type { SearchDoc } from "./fields.ts";
export {
  type NameSource,
  nameResolver,
  type ParsedQuery,
  parseQuery,
  parseSelect,
  selectTools,
} from "./query.ts";
export {
  MAX_RESULTS_DEFAULT,
  MAX_RESULTS_MAX,
  MAX_RESULTS_MIN,
  QUERY_MAX_LENGTH,
  TOOL_SEARCH_INPUT_SCHEMA,
  type ToolSearchInput,
  withDefaults,
} from "./schema.ts";
export type { SearchHit, SearchOptions } from "./scoring.ts";
export { porterStem, stem } from "./stem.ts";
export { analyze, STOPWORDS, tokenize } from "./tokenize.ts";
export { ToolIndex } from "./tool-index.ts";
export { DEFAULT_TUNING, type Tuning } from "./tuning.ts";

export interface ToolSearchResult {
  mode: "select" | "keyword";
  /** Tool names, best first (select: in request order). */
  names: string[];
}

/**
 * Answers a validated tool_search input: `select:` queries resolve exact names (loaded tools included); keyword
 * queries are ranked and leave out the tools in `loaded`.
 */
export function runToolSearch(
  index: ToolIndex,
  input: ToolSearchInput,
  loaded: ReadonlySet<string> = new Set(),
): ToolSearchResult {
  const limit = input.max_results ?? MAX_RESULTS_DEFAULT;
  const selected = parseSelect(input.query);
  if (selected) return { mode: "select", names: selectTools(index, selected, limit) };
  return { mode: "keyword", names: index.search(input.query, { limit, exclude: loaded }).map((h) => h.name) };
}
