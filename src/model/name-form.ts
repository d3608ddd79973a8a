/**
 * The form of a name: a tool's (the form every provider's wire protocol accepts for a tool and a tool call), an
 * agent's and a tenant's. One rule, so a name the API accepts is one every provider accepts.
 */

/** The longest name: 64 characters, OpenAI's limit for a tool's name (Anthropic's too), the stricter wire rule. */
export const NAME_MAX_LENGTH = 64;

/** `^[a-zA-Z0-9_-]{1,64}$`; its `source` is the JSON Schema `pattern` of the same rule. */
export const NAME_FORM = new RegExp(`^[a-zA-Z0-9_-]{1,${NAME_MAX_LENGTH}}$`);
