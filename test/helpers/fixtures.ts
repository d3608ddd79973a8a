// Agents several e2e files share, so each behaviour is tested against the same tool shapes, and the large tool schema
// the prompt-size tests (the context budget's and the mock's) count.
import type { AgentConfig } from "./api.ts";

/** A tool input schema of 100 described string fields: ~6,100 tokens, a large tool for a context to hold. */
export const CATALOG_SCHEMA = {
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [
      `field_${i}`,
      { type: "string", description: `field ${i}: ${"free text about the record ".repeat(7)}` },
    ]),
  ),
};

/** A client-executed address-book lookup (the turn pauses for its result). */
export const LOOKUP_TOOL = {
  name: "lookup",
  description: "Looks a key up in the client's address book.",
  input_schema: {
    type: "object",
    properties: { key: { type: "string" } },
    required: ["key"],
    additionalProperties: false,
  },
} as const;

export function lookupAgent(model: string): AgentConfig {
  return {
    model: { provider: "anthropic", name: model },
    system: "You look things up.",
    tools: [{ ...LOOKUP_TOOL, input_schema: { ...LOOKUP_TOOL.input_schema }, execution: { type: "client" } }],
  };
}

/** One `http` tool, get_weather, served at `${toolUrl}/weather`. */
export function weatherAgent(
  toolUrl: string,
  model: string,
  provider: "anthropic" | "openai" | "openai-responses" = "anthropic",
): AgentConfig {
  return {
    model: { provider, name: model },
    system: "You are a terse weather assistant.",
    tools: [
      {
        name: "get_weather",
        description: "Current weather for a city.",
        input_schema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
        execution: { type: "http", url: `${toolUrl}/weather` },
      },
    ],
  };
}

/** One `http` tool, charge_card, that needs a person's approval; served at `${toolUrl}/charge`. */
export function chargeAgent(
  toolUrl: string,
  model: string,
  provider: "anthropic" | "openai" | "openai-responses" = "anthropic",
): AgentConfig {
  return {
    model: { provider, name: model },
    system: "You charge cards when asked.",
    tools: [
      {
        name: "charge_card",
        description: "Charges the customer's card.",
        input_schema: {
          type: "object",
          properties: { amount: { type: "number" } },
          required: ["amount"],
          additionalProperties: false,
        },
        execution: { type: "http", url: `${toolUrl}/charge` },
        requires_approval: true,
      },
    ],
  };
}
