/** Limits on what a user message may contain; shared by turns, runs and useChat bodies. */
const MAX_MESSAGE_CHARS = 200_000;
const MAX_MESSAGE_PARTS = 100;

/** JSON Schema of message content: a string, or a list of text parts. `minimal` requires at least one char/part. */
export function messageContentSchema(minimal: boolean) {
  return {
    anyOf: [
      { type: "string", ...(minimal ? { minLength: 1 } : {}), maxLength: MAX_MESSAGE_CHARS },
      {
        type: "array",
        ...(minimal ? { minItems: 1 } : {}),
        maxItems: MAX_MESSAGE_PARTS,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["type", "text"],
          properties: { type: { const: "text" }, text: { type: "string", maxLength: MAX_MESSAGE_CHARS } },
        },
      },
    ],
  } as const;
}
