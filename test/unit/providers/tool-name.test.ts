// wireToolName and the three body builders: a call of history whose name no provider accepts (a dotted
// hallucination, an empty name) is sent under a name every wire protocol accepts, still paired with its result.
import { describe, expect, it } from "vitest";
import { getAdapter } from "../../../src/providers";
import { checkInvariant } from "../../../src/providers/check-invariant";
import { wireToolName } from "../../../src/providers/tool-name";
import type { ProviderName } from "../../../src/providers/types";
import { msg, request } from "./helpers";

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("wireToolName", () => {
  it("sends a name the providers accept as it is", () => {
    for (const name of ["lookup", "mcp__gh__list-issues", "a".repeat(64)]) expect(wireToolName(name)).toBe(name);
  });

  it("sends a dotted, empty or too long name in accepted characters, the same way every time", () => {
    for (const name of ["multi_tool_use.parallel", "prometheus.execute_query", "", "a".repeat(65), "ツール"]) {
      expect(wireToolName(name)).toMatch(WIRE_NAME);
      expect(wireToolName(name)).toBe(wireToolName(name));
    }
    expect(wireToolName("multi_tool_use.parallel")).toMatch(/^multi_tool_use_parallel_[0-9a-z]+$/);
    expect(wireToolName("")).toMatch(/^unnamed_[0-9a-z]+$/);
  });

  it("keeps two bad names apart, and apart from the valid name their characters read as", () => {
    const names = ["a.b", "a:b", "a_b", "a b"].map(wireToolName);
    expect(new Set(names).size).toBe(4);
    expect(names[2]).toBe("a_b");
  });
});

describe.each(["anthropic", "openai", "openai-responses"] as const)("the %s body", (protocol: ProviderName) => {
  it("sends calls with bad names under accepted names, each still paired with its result", () => {
    const names = ["multi_tool_use.parallel", ""];
    const ids = ["call_dot", "call_empty"];
    const body = getAdapter(protocol).buildBody(
      request(protocol, {
        messages: [
          msg("user", [{ type: "text", text: "go" }]),
          msg(
            "assistant",
            ids.map((id, i) => ({ type: "tool_use" as const, id, name: names[i] as string, input: {} })),
          ),
          msg(
            "user",
            ids.map((id) => ({
              type: "tool_result" as const,
              tool_use_id: id,
              content: "unknown tool",
              is_error: true,
            })),
          ),
        ],
      }),
    );
    expect(wireNames(protocol, body)).toEqual(names.map(wireToolName));
    for (const name of wireNames(protocol, body)) expect(name).toMatch(WIRE_NAME);
    expect(checkInvariant(protocol, body)).toEqual([]);
  });
});

/** The names of the calls a wire body's history carries, in order. */
function wireNames(protocol: ProviderName, body: Record<string, unknown>): string[] {
  if (protocol === "openai-responses") {
    const input = body.input as Array<{ type: string; name?: string }>;
    return input.flatMap((item) => (item.type === "function_call" ? [item.name as string] : []));
  }
  const messages = body.messages as Array<Record<string, unknown>>;
  if (protocol === "openai") {
    return messages.flatMap((m) =>
      ((m.tool_calls ?? []) as Array<{ function: { name: string } }>).map((c) => c.function.name),
    );
  }
  return messages
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; name?: string }>) : []))
    .flatMap((b) => (b.type === "tool_use" ? [b.name as string] : []));
}
