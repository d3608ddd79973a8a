import type { JsonObject } from "../model/json";
import { compileLenient } from "./schema/index";

/**
 * Validates tool arguments against a run-time schema without code generation
 * (workerd refuses eval). Compiled validators are cached per schema object.
 */
const cache = new WeakMap<object, ReturnType<typeof compileLenient>>();

export interface ArgCheck {
  valid: boolean;
  errors: string[];
}

export function checkArguments(schema: JsonObject, input: unknown): ArgCheck {
  let compiled = cache.get(schema);
  if (!compiled) {
    compiled = compileLenient(schema);
    cache.set(schema, compiled);
  }
  if (!compiled.ok) return { valid: false, errors: [`the tool's own schema is invalid: ${compiled.error}`] };
  const result = compiled.schema.validate(input);
  if (result.valid) return { valid: true, errors: [] };
  return { valid: false, errors: result.errors.map((e) => `${e.path}: ${e.message}`) };
}
