/** JSON values as the conversation model stores them (tool inputs, schemas, structured results). */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
