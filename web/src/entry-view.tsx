// How one transcript entry shows: `EntryView`, its text, notices and tool calls (state icon, input, result), with
// Approve / Deny for a call that awaits a person's approval.
import type { Block, Entry } from "./transcript";
import type { TypedReasons } from "./typed-reasons";

/** The longest reason the server takes with an answer (approval.reason, src/http/routes/chat-body.ts). */
const REASON_MAX_CHARS = 2000;

/** Answers one approval: approved, or denied with an optional reason. */
export type Answer = (approvalId: string, approved: boolean, reason?: string) => void;

const TOOL_ICON: Record<Extract<Block, { kind: "tool" }>["state"], string> = {
  running: "⏳",
  done: "✓",
  error: "✗",
  approval: "⚠",
  denied: "⊘",
  client: "⏸",
  approved: "⏸",
};

/**
 * What a client tool's call says while its turn waits for the result (awaiting_tool_results): this page never
 * sends one, and a new message moves the turn on (the call is superseded).
 */
const CLIENT_CALL_LINE = "Waiting for an app to run this tool — send a message to move on.";

/** What an approved call says while a client call of its step holds it back (state `approved`, heldBy `client`). */
const APPROVED_HELD_LINE =
  "Approved — it runs once an app answers the call waiting beside it. A new message moves on without running it.";

/** What an approved call says while another approval of its step waits (state `approved`, heldBy `approval`). */
const APPROVED_WAITING_LINE =
  "Approved — waiting for the other decisions of this step; it runs once they are all given. A new message moves on without running it.";

/**
 * Approve / Deny for one call. Without `answer` the approval was left behind by a newer message ("Not
 * answered."). With it, the prompt shows as soon as the request arrives; `waiting` keeps the buttons disabled
 * until the turn has paused for it (the stream still has its last frames to send). The reason typed is kept in
 * `reasons`, so an approval opened again after a failed answer still has it.
 */
function ApprovalPrompt({
  block,
  answer,
  waiting,
  reasons,
}: {
  block: Extract<Block, { kind: "tool" }>;
  answer?: Answer;
  waiting: boolean;
  reasons: TypedReasons;
}) {
  const approval = block.approval;
  if (!approval) return null;
  if (!answer) return <p className="approval-reason">Not answered.</p>;
  const reason = reasons.byId.get(approval.id) ?? "";
  return (
    <div className="approval">
      <p className="approval-reason">{approval.reason || "This tool call needs your approval."}</p>
      {approval.resolvedInput !== undefined ? (
        <>
          <p className="approval-reason">Runs with:</p>
          <pre className="resolved-input" title="runs with">
            {JSON.stringify(approval.resolvedInput, null, 2)}
          </pre>
        </>
      ) : null}
      <input
        aria-label={`Reason for ${block.name}`}
        value={reason}
        maxLength={REASON_MAX_CHARS}
        onChange={(e) => reasons.type(approval.id, e.target.value)}
        placeholder="reason (optional)"
        autoComplete="off"
      />
      <button type="button" disabled={waiting} onClick={() => answer(approval.id, true, reason.trim() || undefined)}>
        Approve
      </button>
      <button
        type="button"
        className="deny"
        disabled={waiting}
        onClick={() => answer(approval.id, false, reason.trim() || undefined)}
      >
        Deny
      </button>
    </div>
  );
}

function BlockView({
  block,
  answer,
  waiting,
  reasons,
}: {
  block: Block;
  answer?: Answer;
  waiting: boolean;
  reasons: TypedReasons;
}) {
  if (block.kind === "text") return <p className="text">{block.text}</p>;
  if (block.kind === "notice") return <p className="notice">{block.text}</p>;
  return (
    <details className={`tool ${block.state}`} data-tool={block.name} data-state={block.state} open>
      <summary>
        {TOOL_ICON[block.state]} {block.name}
      </summary>
      <pre className="input" title="input">
        {JSON.stringify(block.input, null, 2)}
      </pre>
      {block.state === "approval" ? (
        <ApprovalPrompt block={block} answer={answer} waiting={waiting} reasons={reasons} />
      ) : null}
      {block.state === "client" ? <p className="approval-reason">{CLIENT_CALL_LINE}</p> : null}
      {block.state === "approved" ? (
        <p className="approval-reason">{block.heldBy === "approval" ? APPROVED_WAITING_LINE : APPROVED_HELD_LINE}</p>
      ) : null}
      {block.output ? (
        <pre className="output" title="result">
          {block.output}
        </pre>
      ) : null}
    </details>
  );
}

/**
 * `answer` is given only to the newest entry: an approval left behind by a newer message was declined by it.
 * `waiting`: the newest entry's turn is still streaming or an answer is on its way. `reasons`: the chat's reasons
 * typed for its approvals (useTypedReasons).
 */
export function EntryView({
  entry,
  answer,
  waiting = false,
  reasons,
}: {
  entry: Entry;
  answer?: Answer;
  waiting?: boolean;
  reasons: TypedReasons;
}) {
  return (
    <li className={`entry ${entry.role}`} data-role={entry.role}>
      {entry.blocks.map((b, i) => (
        <BlockView
          key={b.kind === "tool" ? b.id : `${b.kind}${i}`}
          block={b}
          answer={answer}
          waiting={waiting}
          reasons={reasons}
        />
      ))}
    </li>
  );
}
