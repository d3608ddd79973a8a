// declaredSchema (src/providers/declared-schema.ts): a root union folded into the one object schema providers accept,
// checked against the mock's validator for each protocol.
import { describe, expect, it } from "vitest";
import { validateAnthropicRequest } from "../../../mock/validate-anthropic.ts";
import { validateOpenAIRequest } from "../../../mock/validate-openai.ts";
import { validateResponsesRequest } from "../../../mock/validate-openai-responses.ts";
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

  it("folds a union nested inline in a root anyOf branch, declaring its alternatives' fields", () => {
    const out = declaredSchema({
      anyOf: [
        { type: "object", properties: { id_n1: { type: "string" } }, required: ["id_n1", "mode_n1"] },
        {
          anyOf: [
            { properties: { path_n1: { type: "string" } }, required: ["path_n1", "mode_n1"] },
            { properties: { url_n1: { type: "string" } }, required: ["url_n1", "mode_n1"] },
          ],
        },
      ],
      properties: { mode_n1: { type: "string" } },
    });
    expect(Object.keys(out.properties as JsonObject)).toEqual(["mode_n1", "id_n1", "path_n1", "url_n1"]);
    expect(out.required).toEqual(["mode_n1"]);
    expect(out.description).toContain(
      "requiring {id_n1, mode_n1} | (at least one of 2 alternatives (anyOf), requiring {path_n1, mode_n1} | {url_n1, mode_n1})",
    );
  });

  it("folds a root oneOf branch that is a $ref to a union, declaring that union's fields", () => {
    const out = declaredSchema({
      oneOf: [{ $ref: "#/$defs/Pet" }, { $ref: "#/$defs/Car" }],
      $defs: {
        Pet: { anyOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }] },
        Cat: { type: "object", properties: { meow_n2: { type: "string" } }, required: ["meow_n2"] },
        Dog: { type: "object", properties: { bark_n2: { type: "string" } }, required: ["bark_n2"] },
        Car: { type: "object", properties: { wheels_n2: { type: "integer" } }, required: ["wheels_n2"] },
      },
    });
    expect(Object.keys(out.properties as JsonObject)).toEqual(["meow_n2", "bark_n2", "wheels_n2"]);
    expect(out).not.toHaveProperty("required");
  });

  it("adds what every alternative of a union inside allOf requires", () => {
    const out = declaredSchema({
      allOf: [
        { type: "object", properties: { name_n3: { type: "string" } }, required: ["name_n3"] },
        {
          oneOf: [
            { properties: { a_n3: { type: "string" }, b_n3: { type: "string" } }, required: ["a_n3", "b_n3"] },
            { properties: { a_n3: { type: "string" }, c_n3: { type: "string" } }, required: ["a_n3", "c_n3"] },
          ],
        },
      ],
    });
    expect(Object.keys(out.properties as JsonObject)).toEqual(["name_n3", "a_n3", "b_n3", "c_n3"]);
    expect(out.required).toEqual(["name_n3", "a_n3"]);
  });

  it("stops at a union that refers back to itself, keeping the other branches' fields", () => {
    const out = declaredSchema({
      anyOf: [{ $ref: "#/$defs/Tree" }],
      $defs: {
        Tree: {
          anyOf: [{ $ref: "#/$defs/Tree" }, { properties: { leaf_n4: { type: "string" } }, required: ["leaf_n4"] }],
        },
      },
    });
    expect(out.properties).toEqual({ leaf_n4: { type: "string" } });
    expect(out).not.toHaveProperty("required");
  });

  it("folds a union of refs to unions of refs, 2^24 paths deep, within its bound", () => {
    // Each level's union names the next level twice: unbounded, the fold would take 2^24 steps.
    const defs: JsonObject = { L24: { properties: { deep_n5: { type: "string" } }, required: ["deep_n5"] } };
    for (let i = 0; i < 24; i++)
      defs[`L${i}`] = { anyOf: [{ $ref: `#/$defs/L${i + 1}` }, { $ref: `#/$defs/L${i + 1}` }] };
    const out = declaredSchema({ anyOf: [{ $ref: "#/$defs/L0" }], $defs: defs });
    expect(out.properties).toEqual({ deep_n5: { type: "string" } });
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

  /** A tool whose root anyOf has a branch that is a $ref to another union (zod's nested discriminated unions). */
  const nested: { name: string; description: string; input_schema: JsonObject } = {
    name: "nested_ds",
    description: "a shape",
    input_schema: {
      anyOf: [{ $ref: "#/$defs/Round" }, { properties: { side_n6: { type: "number" } }, required: ["side_n6"] }],
      $defs: {
        Round: {
          oneOf: [
            { type: "object", properties: { radius_n6: { type: "number" } }, required: ["radius_n6"] },
            { type: "object", properties: { axes_n6: { type: "array" } }, required: ["axes_n6"] },
          ],
        },
      },
    },
  };

  const nestedBody = (adapter: typeof anthropic, provider: "anthropic" | "openai" | "openai-responses") =>
    adapter.buildBody(request(provider, { tools: [nested] }));

  it.each([
    ["anthropic", nestedBody(anthropic, "anthropic"), validateAnthropicRequest, ["input_schema"]],
    ["openai", nestedBody(openai, "openai"), validateOpenAIRequest, ["function", "parameters"]],
    ["openai-responses", nestedBody(openaiResponses, "openai-responses"), validateResponsesRequest, ["parameters"]],
  ])(
    "sends a nested union to the %s body with every alternative's fields, and the mock accepts it",
    (_p, body, check, path) => {
      expect(check(body)).toBeNull();
      const sent = at(body, "tools", "0", ...path);
      expect(Object.keys(sent.properties as JsonObject)).toEqual(["radius_n6", "axes_n6", "side_n6"]);
    },
  );
});
