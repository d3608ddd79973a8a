// The two engines of src/json-schema agree: for every fixed schema, the build-time validator (Ajv
// standalone, what the worker runs) and the run-time engine (@cfworker/json-schema, as tool inputs are
// checked) give the same verdict on the same inputs — a valid example and its generated mutations —
// and, when both refuse, the issue the API reports comes out the same from both.
import { describe, expect, it } from "vitest";
import { FIXED_SCHEMAS } from "../../../src/http/fixed-schemas";
import { compileStrict, type FixedSchemaName, validateFixed } from "../../../src/json-schema/index";
import { FIXED_EXAMPLES } from "./fixed-examples";
import { mutations } from "./mutations";

describe("fixed schemas: Ajv standalone and @cfworker agree", () => {
  it("every fixed schema has an example", () => {
    expect(Object.keys(FIXED_EXAMPLES).sort()).toEqual(Object.keys(FIXED_SCHEMAS).sort());
  });

  for (const [name, schema] of Object.entries(FIXED_SCHEMAS)) {
    it(`${name}: same verdict on the example and every mutation`, () => {
      const runtime = compileStrict(schema, { requireObjectRoot: true });
      if (!runtime.ok) throw new Error(runtime.error);
      const inputs = mutations(schema as Record<string, unknown>, FIXED_EXAMPLES[name]);
      let valid = 0;
      for (const input of inputs) {
        const built = validateFixed(name as FixedSchemaName, input);
        const interpreted = runtime.schema.validate(input);
        if (built.valid !== interpreted.valid) {
          throw new Error(
            `${name}: Ajv says ${built.valid}, @cfworker says ${interpreted.valid} for ${JSON.stringify(input).slice(0, 300)}`,
          );
        }
        if (built.valid) valid++;
      }
      expect(validateFixed(name as FixedSchemaName, FIXED_EXAMPLES[name]).valid).toBe(true);
      // Both verdicts occur, so agreement is not agreement on everything being valid (or invalid).
      expect(valid).toBeGreaterThan(1);
      expect(inputs.length - valid).toBeGreaterThan(5);
    });
  }

  it("the first issue Ajv reports is one @cfworker reports too", () => {
    let compared = 0;
    for (const [name, schema] of Object.entries(FIXED_SCHEMAS)) {
      const runtime = compileStrict(schema, { requireObjectRoot: true });
      if (!runtime.ok) throw new Error(runtime.error);
      for (const input of mutations(schema as Record<string, unknown>, FIXED_EXAMPLES[name])) {
        const built = validateFixed(name as FixedSchemaName, input);
        const interpreted = runtime.schema.validate(input);
        if (built.valid || interpreted.valid) continue;
        expect(interpreted.issues, `${name}: ${JSON.stringify(input).slice(0, 200)}`).toContainEqual(built.issues[0]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
