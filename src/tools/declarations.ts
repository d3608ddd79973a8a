import type { AgentConfig } from "../agents/types";
import type { ToolDeclaration } from "../session/history/parts";

/** The tools declared to the model for a step, in the agent's stable order. */
export function declarationsFor(agent: AgentConfig): ToolDeclaration[] {
  return agent.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
}
