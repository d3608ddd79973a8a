/**
 * Every fixed JSON Schema of the API, by the name of its build-time validator: the request bodies
 * (`bodies.ts`), the agent config (`agents/schema.ts`) and the built-in tools' inputs. `npm run schemas`
 * compiles this table with Ajv's standalone code generation into `json-schema/generated/`, which the
 * worker validates with (`json-schema/validate-fixed.ts`); the worker itself never imports this file.
 * test/unit/scripts/build-schemas.test.ts fails when the generated code is stale.
 */
import { TOOL_SEARCH_INPUT_SCHEMA } from "@switchboard/tool-search";
import { SELECT_TOOLS_INPUT_SCHEMA, TOOL_INFO_INPUT_SCHEMA } from "../tools/builtins/declarations";
import {
  agentBody,
  chatBody,
  corsBody,
  createKeyBody,
  createSessionBody,
  createTokenBody,
  messageBody,
  runBody,
  toolApprovalsBody,
  toolResultsBody,
} from "./bodies";

export const FIXED_SCHEMAS: Record<string, object> = {
  agentBody,
  chatBody,
  corsBody,
  createKeyBody,
  createSessionBody,
  createTokenBody,
  messageBody,
  runBody,
  toolApprovalsBody,
  toolResultsBody,
  toolSearchInput: TOOL_SEARCH_INPUT_SCHEMA,
  toolInfoInput: TOOL_INFO_INPUT_SCHEMA,
  selectToolsInput: SELECT_TOOLS_INPUT_SCHEMA,
};
