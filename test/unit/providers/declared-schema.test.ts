import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../src/model/json";
import { anthropic } from "../../../src/providers/anthropic";
import { declaredSchema } from "../../../src/providers/declared-schema";
import { openai } from "../../../src/providers/openai";
import { openaiResponses } from "../../../src/providers/openai-responses";
import { declaration } from "../../../src/tools/registry";
import { request } from "./helpers";

const EITHER: JsonObject = {
  type: "object",
  properties: { kind: { type: "string" } },
  required: ["kind"],
  oneOf: [
    { properties: { path: { type: "string" }, kind: { const: "file" } }, required: ["path", "kind"] },
    { properties: { url: { type: "string" } }, required: ["url"] },
  ],
};
const decl = { name: "either_ts", description: "file or url", input_schema: EITHER };

describe("declaredSchema", () => {
  it("sends a schema without a root combinator as it is", () => {
    const plain: JsonObject = { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } };
    expect(declaredSchema(plain)).toBe(plain);
  });

  it('sends a root type list with "object" in it as type object', () => {
    const nullable: JsonObject = { type: ["object", "null"], properties: { a_tl: { type: "string" } } };
    expect(declaredSchema(nullable)).toEqual({ type: "object", properties: { a_tl: { type: "string" } } });
  });

  it("folds a root oneOf into one object of every branch's properties, requiring only what all require", () => {
    const out = declaredSchema(EITHER);
    expect(out).not.toHaveProperty("oneOf");
    expect(out).toMatchObject({
      type: "object",
      properties: {
        kind: { anyOf: [{ type: "string" }, { const: "file" }] },
        path: { type: "string" },
        url: { type: "string" },
      },
      required: ["kind"],
    });
    expect(out.description).toContain("exactly one of 2 alternatives (oneOf), requiring {path, kind} | {url}");
  });

  it("adds allOf branches' required names and gives a root without a type type object", () => {
    const out = declaredSchema({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { properties: { b: { type: "number" } }, required: ["b"] },
      ],
      description: "two parts",
    });
    expect(out).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a", "b"],
      description: "two parts\n\nThe arguments must match all of 2 schemas (allOf).",
    });
  });

  it("reads a root oneOf of local $refs (a Pydantic or zod union) through their definitions, keeping $defs", () => {
    const pet: JsonObject = {
      type: "object",
      oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/definitions/Dog" }],
      $defs: {
        Cat: {
          type: "object",
          properties: { meow: { type: "string" }, owner: { $ref: "#/$defs/Owner" } },
          required: ["meow"],
        },
        Owner: { type: "object", properties: { name: { type: "string" } } },
      },
      definitions: { Dog: { type: "object", properties: { bark: { type: "boolean" } }, required: ["bark"] } },
    };
    const out = declaredSchema(pet);
    expect(out.properties).toEqual({
      meow: { type: "string" },
      owner: { $ref: "#/$defs/Owner" },
      bark: { type: "boolean" },
    });
    expect(out.description).toContain("exactly one of 2 alternatives (oneOf), requiring {meow} | {bark}");
    expect(out.$defs).toEqual(pet.$defs);
  });

  it("reads a root anyOf branch through a chain of local $refs to the object at its end", () => {
    const chained: JsonObject = {
      anyOf: [{ $ref: "#/$defs/A" }],
      $defs: {
        A: { $ref: "#/$defs/B" },
        B: { type: "object", properties: { x_chain: { type: "string" } }, required: ["x_chain"] },
      },
    };
    const out = declaredSchema(chained);
    expect(out.properties).toEqual({ x_chain: { type: "string" } });
    expect(out.required).toEqual(["x_chain"]);
    expect(out.description).toContain("requiring {x_chain}");
  });

  it.each([
    ["anthropic", () => anthropic.buildBody(request("anthropic", { tools: [decl] })).tools],
    ["openai", () => openai.buildBody(request("openai", { tools: [decl] })).tools],
    ["openai-responses", () => openaiResponses.buildBody(request("openai-responses", { tools: [decl] })).tools],
  ])("reaches the %s body with no combinator at the root", (_provider, tools) => {
    const text = JSON.stringify(tools());
    expect(text).toContain('"url"');
    expect(text).not.toContain('"oneOf"');
  });

  /** An http tool whose arguments are a Pydantic-style union of two models: its declaration is widened for $tool. */
  const petTool = {
    name: "pet_ds",
    description: "a cat or a dog",
    input_schema: {
      type: "object",
      oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }],
      $defs: {
        Cat: { type: "object", properties: { meow: { type: "string" } }, required: ["meow"] },
        Dog: { type: "object", properties: { bark: { type: "string" } }, required: ["bark"] },
      },
    },
    source: "http" as const,
    deferred: false,
  };

  /** The value at `path` in a request body (the first tool's schema). */
  const at = (body: unknown, ...path: string[]) =>
    path.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], body) as JsonObject;
  const bodyOf = (adapter: typeof anthropic, provider: "anthropic" | "openai" | "openai-responses") =>
    adapter.buildBody(request(provider, { tools: [declaration(petTool)] }));

  it.each([
    ["anthropic", () => at(bodyOf(anthropic, "anthropic"), "tools", "0", "input_schema")],
    ["openai", () => at(bodyOf(openai, "openai"), "tools", "0", "function", "parameters")],
    ["openai-responses", () => at(bodyOf(openaiResponses, "openai-responses"), "tools", "0", "parameters")],
  ])("sends a widened http tool's root union of $refs to the %s body with its branches' properties", (_p, schema) => {
    const sent = schema();
    expect(Object.keys(sent.properties as JsonObject)).toEqual(["meow", "bark"]);
    expect(sent.description).toContain("requiring {meow} | {bark}");
  });
});
