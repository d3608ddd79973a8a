// Tool sets for the MCP fixture server: a small hand-written one that exercises every result shape, one whose
// answers the server drops, and a generated catalog of realistic tools (the 150-tool figures and tests).
import type { McpToolSpec } from "./mcp-server.ts";

const str = (description: string) => ({ type: "string", description });
const obj = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

export function basicTools(): McpToolSpec[] {
  return [
    {
      name: "echo",
      description: "Echo a text back unchanged.\nUseful to check the connection.",
      inputSchema: obj({ text: str("Text to echo") }, ["text"]),
      behaviour: { kind: "echo" },
    },
    {
      name: "add_numbers",
      description: "Add two numbers and return their sum as structured content.",
      inputSchema: obj({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
      outputSchema: obj({ sum: { type: "number" } }, ["sum"]),
      behaviour: { kind: "sum" },
    },
    {
      name: "always_fails",
      description: "A tool that always reports an error.",
      inputSchema: obj({}, []),
      behaviour: { kind: "fail", message: "the widget service is out of widgets" },
    },
    {
      name: "sleep",
      description: "Wait a number of milliseconds, then answer.",
      inputSchema: obj({ ms: { type: "integer", minimum: 0 } }, ["ms"]),
      behaviour: { kind: "sleep" },
    },
    {
      name: "big_output",
      description: "Return a very long text of the requested size.",
      inputSchema: obj({ chars: { type: "integer", minimum: 1 } }, ["chars"]),
      behaviour: { kind: "big" },
    },
    {
      name: "whoami",
      description: "Report the credentials the server received.",
      inputSchema: obj({}, []),
      meta: { "anthropic/alwaysLoad": true },
      behaviour: { kind: "whoami" },
    },
  ];
}

/**
 * Two tools whose server drops the SSE stream of their tools/call answer (`answer_ends`: it ends, `answer_cut`: it
 * breaks off) before answering, and `echo`, answered as usual, to call beside them.
 */
export function droppingTools(): McpToolSpec[] {
  const none = obj({}, []);
  return [
    {
      name: "answer_ends",
      description: "A tool whose answer stream ends before it answers.",
      inputSchema: none,
      behaviour: { kind: "sse_drop", how: "end" },
    },
    {
      name: "answer_cut",
      description: "A tool whose answer stream breaks off before it answers.",
      inputSchema: none,
      behaviour: { kind: "sse_drop", how: "cut" },
    },
    basicTools()[0] as McpToolSpec,
  ];
}

const DOMAINS: Array<[string, string]> = [
  ["repo", "source code repository"],
  ["issue", "issue tracker ticket"],
  ["invoice", "customer invoice"],
  ["calendar", "calendar event"],
  ["ticket", "support desk ticket"],
  ["file", "file in cloud storage"],
  ["user", "user account in the directory"],
  ["deploy", "service deployment"],
  ["metric", "monitoring metric series"],
  ["email", "email message in the mailbox"],
  ["order", "e-commerce order"],
  ["contact", "CRM contact"],
  ["document", "shared text document"],
  ["alert", "monitoring alert"],
  ["payment", "card payment"],
];

const VERBS: Array<[string, string, (noun: string) => Record<string, unknown>, string[]]> = [
  [
    "list",
    "List every",
    () => ({ limit: { type: "integer", minimum: 1, maximum: 100 }, cursor: str("Page cursor") }),
    [],
  ],
  ["get", "Fetch one", (n) => ({ id: str(`Identifier of the ${n}`) }), ["id"]],
  ["create", "Create a new", (n) => ({ title: str(`Title of the ${n}`), body: str("Free-text details") }), ["title"]],
  [
    "update",
    "Change fields of an existing",
    (n) => ({ id: str(`Identifier of the ${n}`), fields: { type: "object" } }),
    ["id", "fields"],
  ],
  ["delete", "Permanently delete a", (n) => ({ id: str(`Identifier of the ${n}`) }), ["id"]],
  ["search", "Full-text search over", () => ({ query: str("Search terms"), limit: { type: "integer" } }), ["query"]],
  ["archive", "Archive an old", (n) => ({ id: str(`Identifier of the ${n}`) }), ["id"]],
  ["export", "Export as CSV every", () => ({ since: str("ISO date lower bound") }), []],
  [
    "share",
    "Share with a colleague one",
    (n) => ({ id: str(`Identifier of the ${n}`), with: str("Email address") }),
    ["id", "with"],
  ],
  [
    "comment",
    "Add a comment to a",
    (n) => ({ id: str(`Identifier of the ${n}`), text: str("Comment text") }),
    ["id", "text"],
  ],
];

/** `count` generated tools (domain × verb), starting at domain `offset`; names are unique per server. */
export function generatedTools(count: number, offset = 0): McpToolSpec[] {
  const out: McpToolSpec[] = [];
  for (let i = 0; out.length < count; i++) {
    const [domain, noun] = DOMAINS[(offset + Math.floor(i / VERBS.length)) % DOMAINS.length] as [string, string];
    const [verb, phrase, props, required] = VERBS[i % VERBS.length] as (typeof VERBS)[number];
    const round = Math.floor(i / (VERBS.length * DOMAINS.length));
    out.push({
      name: `${verb}_${domain}${round ? `_${round}` : ""}`,
      description: `${phrase} ${noun}${verb === "list" || verb === "export" ? "s" : ""}. Returns JSON describing the result.`,
      inputSchema: obj(props(noun), required),
      behaviour: { kind: "echo" },
    });
  }
  return out;
}

/**
 * One tool whose input schema is written in draft-04 with draft-07 tuples and vendor keys, as older MCP servers
 * still ship them: valid where it was written, refused by a provider that checks tool schemas as 2020-12.
 */
export function legacyTools(): McpToolSpec[] {
  return [
    {
      name: "plot",
      description: "Plot a point at a size.",
      inputSchema: {
        $schema: "http://json-schema.org/draft-04/schema#",
        type: "object",
        "x-order": 1,
        properties: {
          size: { type: "number", minimum: 0, exclusiveMinimum: true },
          point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
        },
        required: ["size", "point"],
      },
      behaviour: { kind: "echo" },
    },
  ];
}

/** Presets a child process can be started with (`--preset`). */
export function presetTools(preset: string): McpToolSpec[] {
  if (preset === "basic") return basicTools();
  if (preset === "legacy") return legacyTools();
  const m = preset.match(/^generated:(\d+)(?::(\d+))?$/);
  if (m) return generatedTools(Number(m[1]), Number(m[2] ?? 0));
  throw new Error(`unknown MCP fixture preset ${preset}`);
}
