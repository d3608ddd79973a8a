/**
 * The document's JSON content: a reference to one of its named schemas (`ref`), a JSON response (`jsonOf`) and a
 * required JSON request body of a named schema (`body`).
 */

export type Json = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const jsonOf = (schema: Json, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
export const body = (name: string, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { "application/json": { schema: ref(name) } },
});
