// The provider registry (src/providers/index.ts): an adapter per protocol (and the call ids it sends), endpoints read
// from the environment, and the default retry policy and its timeouts from the environment.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  endpointFromEnv,
  getAdapter,
  type ProviderName,
  policyFor,
} from "../../../src/providers/index";
import { repoRoot } from "../../helpers/index";
import { msg, request } from "./helpers";

describe("providers/index", () => {
  it("returns the adapter for each protocol", () => {
    expect(getAdapter("anthropic").name).toBe("anthropic");
    expect(getAdapter("openai").name).toBe("openai");
    expect(getAdapter("openai-responses").name).toBe("openai-responses");
  });

  it.each<ProviderName>(["anthropic", "openai", "openai-responses"])(
    "%s sends a call and its result under the id its wireCallId gives (a $tool reference cites that form)",
    (provider) => {
      const adapter = getAdapter(provider);
      const id = "functions.lookup:0";
      const body = adapter.buildBody(
        request(provider, {
          messages: [
            msg("user", [{ type: "text", text: "look it up" }]),
            msg("assistant", [{ type: "tool_use", id, name: "lookup", input: {} }]),
            msg("user", [
              { type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "found" }], is_error: false },
            ]),
          ],
        }),
      );
      const wire = JSON.stringify(body);
      const sent = JSON.stringify(adapter.wireCallId(id));
      expect(wire.split(sent).length - 1).toBe(2);
    },
  );

  it("the Responses API reads the OpenAI variables", () => {
    expect(endpointFromEnv("openai-responses", {})).toEqual({ baseUrl: "https://api.openai.com/v1", apiKey: "" });
    expect(endpointFromEnv("openai-responses", { OPENAI_BASE_URL: "http://mock/v1/", OPENAI_API_KEY: "sk" })).toEqual({
      baseUrl: "http://mock/v1",
      apiKey: "sk",
    });
  });

  it("reads endpoints from the environment with defaults", () => {
    expect(endpointFromEnv("anthropic", {})).toEqual({ baseUrl: "https://api.anthropic.com", apiKey: "" });
    expect(endpointFromEnv("openai", { OPENAI_API_KEY: "sk" })).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk",
    });
    expect(
      endpointFromEnv("anthropic", { ANTHROPIC_BASE_URL: "http://127.0.0.1:8787/", ANTHROPIC_API_KEY: "ak" }),
    ).toEqual({ baseUrl: "http://127.0.0.1:8787", apiKey: "ak" });
    expect(endpointFromEnv("openai", { OPENAI_BASE_URL: "http://mock/v1//" }).baseUrl).toBe("http://mock/v1");
  });

  it("keeps the idle window and the step deadline README documents, with nothing set", () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const idleS = Number(/`SWITCHBOARD_IDLE_TIMEOUT_MS` \(provider idle watchdog,\s+default (\d+) s/.exec(readme)?.[1]);
    const stepMin = Number(
      /`SWITCHBOARD_STEP_TIMEOUT_MS` \(provider step deadline, default (\d+) min/.exec(readme)?.[1],
    );
    expect(policyFor({})).toMatchObject({ idleTimeoutMs: idleS * 1000, stepTimeoutMs: stepMin * 60_000 });
  });

  it("reads the step deadline from SWITCHBOARD_STEP_TIMEOUT_MS, keeping the idle window", () => {
    const policy = policyFor({ SWITCHBOARD_STEP_TIMEOUT_MS: "90000" });
    expect(policy).toMatchObject({ stepTimeoutMs: 90_000, idleTimeoutMs: DEFAULT_RETRY_POLICY.idleTimeoutMs });
  });
});
