// checkSchemaTree (src/json-schema/walk.ts), lenient: a $ref into a draft-07 tuple resolves once the tuple is
// rewritten, and the problem names the rewritten position.
import { describe, expect, it } from "vitest";
import { checkSchemaTree } from "../../../src/json-schema/walk";

describe("checkSchemaTree, lenient", () => {
  it("resolves a $ref into a draft-07 tuple after rewriting it, naming the rewritten position", () => {
    const schema = {
      type: "object",
      properties: {
        pair: {
          type: "array",
          items: [{ type: "array", items: [{ type: "string" }] }, { type: "string" }],
          additionalItems: false,
        },
        first: { $ref: "#/properties/pair/items/0" },
        inner: { $ref: "#/properties/pair/items/0/items/0" },
        rest: { $ref: "#/properties/pair/additionalItems" },
      },
    };
    expect(checkSchemaTree(schema, true).problems).toEqual([]);
    expect(schema.properties).toMatchObject({
      first: { $ref: "#/properties/pair/prefixItems/0" },
      inner: { $ref: "#/properties/pair/prefixItems/0/prefixItems/0" },
      rest: { $ref: "#/properties/pair/items" },
    });
  });
});
