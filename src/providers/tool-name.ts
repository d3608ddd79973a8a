/**
 * `wireToolName`: the name a tool call of history is sent under, in the form every wire protocol accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`: OpenAI's rule for Chat Completions and the Responses API, and Anthropic's for a
 * tool_use). A model may call a tool that does not exist under a name no provider accepts (GPT-4o's
 * `multi_tool_use.parallel`, a dotted `prometheus.execute_query`), or under no name at all; the call is answered
 * "unknown tool" and kept in history as the model wrote it, but sent back as it was, it would have every later
 * request of the session refused (400, never retried). Pure.
 */
import { cyrb53 } from "../crypto/cyrb53";
import { NAME_FORM, NAME_MAX_LENGTH } from "../model/name-form";

/** The readable stem of a call that had no name. */
const UNNAMED_STEM = "unnamed";

/**
 * A name the providers accept (NAME_FORM: every tool the session declares has such a name) is sent as it is. Any other is sent as its accepted characters (others become `_`,
 * an empty name is `unnamed`), cut to fit, then `_` and a digest of the whole name. The same name always maps the
 * same way; the digest keeps apart two names that differ only in such characters, and keeps the result off the
 * names of declared tools (which need no projection), so the model never sees its bad call as a call to a real tool.
 */
export function wireToolName(name: string): string {
  if (NAME_FORM.test(name)) return name;
  const digest = cyrb53(name);
  const stem = name === "" ? UNNAMED_STEM : name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return `${stem.slice(0, NAME_MAX_LENGTH - 1 - digest.length)}_${digest}`;
}
