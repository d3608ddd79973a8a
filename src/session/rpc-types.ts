/**
 * Types shared by the worker and the session object across their RPC boundary: what a turn call carries
 * (`TurnCall`, `SendInput`) and answers (`TurnAnswer`, `TurnReply`, `TurnResult`), a call's answer with the object's
 * debug counts (`Reply`), and the shapes of session state and of message and event pages. Types, and the one key
 * prefix and the session incarnation both sides must agree on.
 */
import type { McpServerStatus } from "../mcp/mcp-catalog";
import type { ErrorInfo, Result } from "../model/errors";
import type { JsonObject } from "../model/json";
import type { Message, Part, ToolResultContent } from "../model/message";
import type { TurnStatus } from "../model/turn";
import type { SessionEvent } from "../observability/event-log";
import type { DebugCounts } from "../storage/debug-counters";
import type { AgentArg } from "./agent-cache";
import type { ApprovalAnswer, ApprovalStatus, OpenApproval } from "./approval-store";
import type { CompactionMarker } from "./compaction/records";
import type { CallState } from "./history/call-ledger";
import type { SuppliedResult } from "./history/close-open-calls";
import type { TurnOutcome } from "./turn/turn-store";

export type Mode = "stream" | "json";
/**
 * How the session engine answers a turn call: a client's `Mode`, or "none" for the object's own callers (a webhook
 * run's admission or resume, an approval's expiry) that read neither: no stream is opened, so none takes one of the
 * object's MAX_SUBSCRIBERS places (opening one drops the oldest, a client's), and nothing waits for the turn's end.
 */
export type AnswerMode = Mode | "none";

export interface SessionInfo {
  tenant: string;
  id: string;
  agent: string;
  created_at: string;
  metadata: Record<string, unknown> | null;
  /**
   * Drawn anew by each create of the id (Session `#create`): a session token names the incarnation it was
   * minted for. Absent in sessions created before incarnations were kept (see `incarnationOf`).
   */
  incarnation?: string;
}

/** The session's incarnation; a session created before incarnations were kept goes by its `created_at`. */
export function incarnationOf(info: SessionInfo): string {
  return info.incarnation ?? info.created_at;
}

/**
 * What the object checks of a session token a call came with: its `iat` (Unix seconds) and `inc`, the
 * incarnation it was minted for (absent in tokens minted before tokens carried it). See `SessionRecord.foreign`.
 */
export interface TokenStamp {
  iat: number;
  inc?: string;
}

/** A webhook run's turn's idempotency key is this + the run id; a client's `Idempotency-Key` may not start with it. */
export const RUN_KEY_PREFIX = "run:";

export interface SendInput {
  content: Part[];
  tool_results: SuppliedResult[];
  max_steps?: number;
  /** The client's `Idempotency-Key`, or RUN_KEY_PREFIX + the run id for a webhook run's turn. */
  idempotency_key?: string;
  /** The body's hash (crypto/body-hash.ts), stored with the turn the key admits. */
  body_hash?: string;
  /** The body's hash as stored before bodies were hashed as canonical JSON: a turn stored with it had this body. */
  earlier_body_hash?: string;
  /** Already compiled strictly by the worker; the turn must end with a value valid against it. */
  json_schema?: JsonObject;
}

export interface TurnResult {
  turn_id: string;
  status: TurnStatus;
  finish_reason: string | null;
  messages: Message[];
  error?: ErrorInfo;
  usage: Record<string, number>;
  structured_result?: unknown;
  pending_tool_calls?: Array<{ id: string; name: string }>;
  pending_approvals?: OpenApproval[];
}

export interface TurnAnswer {
  turn_id: string;
  replayed: boolean;
  stream?: ReadableStream<Uint8Array>;
  result?: TurnResult;
  /** Debug mode only: the storage work of this call (in JSON mode, of the whole turn). */
  debug?: DebugCounts;
}

/**
 * The answer of a call that may touch D1 (a turn call, a state read, a compaction, a DELETE). Debug mode: it carries
 * the storage work the object did for the call, a refusal's too (a D1 agent re-read before it), which the worker
 * adds to the request's `x-debug-d1-statements`.
 */
export type Reply<R> = R & { debug?: DebugCounts };

/** A turn call's answer (`Reply`). */
export type TurnReply = Reply<Result<TurnAnswer>>;

/** The calls that start or resume a turn, as Session's methods of the same names take them (turn-wire.ts). */
export type TurnCall = (
  | { call: "sendMessage"; agent: AgentArg; input: SendInput; mode: Mode }
  | { call: "submitToolResults"; agent: AgentArg; results: SuppliedResult[]; mode: Mode; onlyPending: boolean }
  | {
      call: "answerApprovals";
      agent: AgentArg;
      answers: ApprovalAnswer[];
      mode: Mode;
      by: string;
      fromChat: boolean;
      /**
       * False: the caller may not decide approvals (POST /chat with a session token lacking `approve`). Answers for
       * pending approvals are then refused (403 insufficient_scope, nothing written); repeats of answered ones are not.
       */
      mayDecide?: boolean;
      /** POST /chat: the client tool outputs of the same message, checked and written with the answers. */
      outputs?: SuppliedResult[];
      /** POST /v1/runs/{id}/approvals: only this run's own open approvals may be answered. */
      run?: string;
    }
  | { call: "retry"; agent: AgentArg; mode: Mode }
) & {
  /** The session token's stamp (undefined for an API key): the object refuses a token minted for another session. */
  stamp?: TokenStamp;
};

/**
 * An open call with no result yet, as the session state lists it. `awaited` is false for a call of a turn that
 * failed with it open: no turn goes on with its result until a `/retry` or a message (admit-turn.ts).
 */
export interface PendingCall {
  id: string;
  name: string;
  execution: string;
  awaited: boolean;
}

export interface SessionState {
  id: string;
  agent: string;
  status: "idle" | "running" | "awaiting_tool_results" | "awaiting_approval" | "failed";
  created_at: string;
  metadata: Record<string, unknown> | null;
  turns: number;
  messages: number;
  last_turn: TurnOutcome | null;
  loaded_tools: string[];
  pending_tool_calls: PendingCall[];
  /** Estimated size of the provider view (README "Long sessions"); the worker adds the agent's window. */
  context: {
    estimated_tokens: number;
    view_start_seq: number;
    compactions: number;
    /**
     * The agent's context window (or the smaller one its model's provider named in a context-length error, which
     * compaction works to) and compaction threshold; null when the caller gave no agent or it is gone.
     */
    context_window: number | null;
    threshold: number | null;
    /** estimated_tokens / context_window, 3 decimals. */
    used: number | null;
  };
  /** Approvals waiting for a person (durable: they survive restarts and deploys). */
  pending_approvals: OpenApproval[];
  /** The newest turn's paused step while it awaits results or approvals; null otherwise. */
  pause: PauseView | null;
  /** The agent's MCP servers as of their last listing (a turn lists them first; none before the first turn). */
  mcp_servers: McpServerStatus[];
}

/**
 * A paused step as a client that reloads must hold it to continue the turn's message: the resumed segment
 * answers every approval of the pause (answered or not) by its id, and the step's results stay in the ledger
 * until it closes, so the history shows its calls without them.
 */
export interface PauseView {
  turn_id: string;
  /** Every approval of the pause, answered (elsewhere, or by its TTL) or not. */
  approvals: Array<OpenApproval & { status: ApprovalStatus; decided_reason: string | null }>;
  /** The step's calls in tool_use order, with their ledger state and, once they have one, their result. */
  calls: Array<{
    id: string;
    name: string;
    execution: string;
    state: CallState;
    result?: ToolResultContent;
    is_error?: boolean;
  }>;
}

export interface EventsPage {
  events: SessionEvent[];
  next: number | null;
}

export interface MessagesPage {
  messages: Message[];
  next: number | null;
  /** Compactions whose boundary falls in this page: the summary replaced what came before `before_seq`. */
  compactions: CompactionMarker[];
  /** How each ended turn with a message on this page ended (turn-store.ts `endedIn`). */
  turns: TurnOutcome[];
}
