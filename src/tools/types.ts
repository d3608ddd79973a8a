/** What a tool is to the session, whatever its source: RegisteredTool and its source kind. */

import type { ToolExecution } from "../agents/types";
import type { JsonObject } from "../model/json";

type ToolSource = "builtin" | "http" | "client" | "mcp";

/** One tool as the session sees it, whatever its source. */
export interface RegisteredTool {
  name: string;
  description: string;
  /** Advertised schema: compact, sent in declarations. */
  input_schema: JsonObject;
  /** Richer schema for tool_info and validation, when the tool has one. */
  discovery_schema?: JsonObject;
  source: ToolSource;
  /** Announced by name only until loaded (DESIGN §5). */
  deferred: boolean;
  search_hint?: string;
  execution?: ToolExecution;
  /** For `source: "mcp"`: the server and the tool's own name there (src/mcp). */
  mcp?: { server: string; tool: string };
}
