// Synthesizes a plausible value for a JSON Schema (used by the default brain to call tools).
import { isRecord } from "./types.ts";

const FORMATS: Record<string, string> = {
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  time: "00:00:00Z",
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
};

/** Required properties only, sample values by type: string "example", number 1, boolean true, enum first value. */
export function sampleFromSchema(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 8) return {};
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleFromSchema(options[0], depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return typeof schema.format === "string" && FORMATS[schema.format] ? FORMATS[schema.format] : "example";
    case "number":
    case "integer":
      return typeof schema.minimum === "number" && schema.minimum > 1 ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      return isRecord(schema.items) && min > 0 ? [sampleFromSchema(schema.items, depth + 1)] : [];
    }
    default:
      return sampleObject(schema, depth);
  }
}

function sampleObject(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name === "string") out[name] = sampleFromSchema(properties[name], depth + 1);
  }
  return out;
}
