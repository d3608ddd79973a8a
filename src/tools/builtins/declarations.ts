/**
 * Declarations of the built-in disclosure tools (`tool_search`, `tool_info`, `select_tools`): their input
 * schemas and `builtinTools`, which lists the enabled ones. Declarations only; tools/builtins/run.ts runs them.
 */
import { TOOL_SEARCH_INPUT_SCHEMA } from "@switchboard/tool-search";
import type { JsonObject } from "../../model/json";
import { NAME_MAX_LENGTH } from "../../model/name-form";
import type { RegisteredTool } from "../types";

export const TOOL_INFO_INPUT_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    // As select_tools' names: no tool's name is longer, and an unknown name is searched for and echoed back.
    name: { type: "string", minLength: 1, maxLength: NAME_MAX_LENGTH, description: "Exact tool name." },
    include_schema: { type: "boolean", description: "Return the full input schema (default false)." },
  },
  required: ["name"],
  additionalProperties: false,
};

export const SELECT_TOOLS_INPUT_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    names: {
      type: "array",
      // No tool's name is longer (NAME_FORM); a longer one is refused as an invalid call, not echoed as "unknown".
      items: { type: "string", minLength: 1, maxLength: NAME_MAX_LENGTH },
      minItems: 1,
      maxItems: 20,
      description: "Exact names of tools to load.",
    },
  },
  required: ["names"],
  additionalProperties: false,
};

const builtin = (name: string, description: string, input_schema: JsonObject): RegisteredTool => ({
  name,
  description,
  input_schema,
  source: "builtin",
  deferred: false,
});

/** Built-in disclosure tools, in a fixed order so the tools prefix stays byte-stable. */
export function builtinTools(on: { search: boolean; info: boolean; select: boolean }): RegisteredTool[] {
  const out: RegisteredTool[] = [];
  if (on.search) {
    out.push(
      builtin(
        "tool_search",
        "Find tools that are available but not loaded yet. Keywords are ranked (prefix a word with + to require it); " +
          "`select:name_a,name_b` loads exact names. Matching tools can be called from the next step on.",
        TOOL_SEARCH_INPUT_SCHEMA as JsonObject,
      ),
    );
  }
  if (on.info) {
    out.push(
      builtin(
        "tool_info",
        "Describe one tool: its description and parameter names, or with include_schema: true its full input schema.",
        TOOL_INFO_INPUT_SCHEMA,
      ),
    );
  }
  if (on.select) {
    out.push(
      builtin(
        "select_tools",
        "Load tools by exact name so they can be called from the next step on. Answers per name: loaded, already available or unknown.",
        SELECT_TOOLS_INPUT_SCHEMA,
      ),
    );
  }
  return out;
}
