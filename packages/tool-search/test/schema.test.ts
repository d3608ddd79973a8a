// The tool_search input schema: what validates and what fails, and the default `withDefaults` fills in.

import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import {
  MAX_RESULTS_DEFAULT,
  QUERY_MAX_LENGTH,
  TOOL_SEARCH_INPUT_SCHEMA,
  type ToolSearchInput,
  withDefaults,
} from "../src/index.ts";

const validator = new Validator(TOOL_SEARCH_INPUT_SCHEMA as never, "2020-12", false);
const valid = (v: unknown) => validator.validate(v).valid;

describe("tool_search input schema", () => {
  it("accepts max_results 1 through 20 and an omitted max_results", () => {
    expect(valid({ query: "github", max_results: 1 })).toBe(true);
    expect(valid({ query: "github", max_results: 20 })).toBe(true);
    expect(valid({ query: "github", max_results: 7 })).toBe(true);
    expect(valid({ query: "github" })).toBe(true);
  });

  it("rejects out-of-range and non-integer max_results instead of clamping", () => {
    expect(valid({ query: "github", max_results: 0 })).toBe(false);
    expect(valid({ query: "github", max_results: 21 })).toBe(false);
    expect(valid({ query: "github", max_results: 2.5 })).toBe(false);
    expect(valid({ query: "github", max_results: -1 })).toBe(false);
    expect(valid({ query: "github", max_results: "5" })).toBe(false);
  });

  it("requires a non-empty string query and no other fields", () => {
    expect(valid({})).toBe(false);
    expect(valid({ query: "" })).toBe(false);
    expect(valid({ query: 3 })).toBe(false);
    expect(valid({ query: "x", extra: true })).toBe(false);
  });

  it("rejects a query longer than QUERY_MAX_LENGTH characters", () => {
    expect(QUERY_MAX_LENGTH).toBe(2000);
    expect(valid({ query: "x".repeat(QUERY_MAX_LENGTH) })).toBe(true);
    expect(valid({ query: "x".repeat(QUERY_MAX_LENGTH + 1) })).toBe(false);
  });

  it("leaves the default to the caller", () => {
    const input: ToolSearchInput = { query: "github" };
    expect(validator.validate(input).valid).toBe(true);
    expect(input.max_results).toBeUndefined(); // the validator does not fill defaults in
    expect(withDefaults(input)).toEqual({ query: "github", max_results: MAX_RESULTS_DEFAULT });
    // The default the model is told (the schema's `default` and description) is the one applied.
    expect(TOOL_SEARCH_INPUT_SCHEMA.properties.max_results.default).toBe(MAX_RESULTS_DEFAULT);
    expect(TOOL_SEARCH_INPUT_SCHEMA.properties.max_results.description).toContain(`default ${MAX_RESULTS_DEFAULT}`);
    expect(withDefaults({ query: "x", max_results: 12 }).max_results).toBe(12);
  });
});
