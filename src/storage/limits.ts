/**
 * Size limits of what the Session Durable Object stores, in one place.
 * Durable Object SQLite refuses any string, BLOB or row over 2 MB in
 * production (local workerd does not), so every writer whose cell can grow
 * fits its value under a budget below that, with an explicit truncation
 * marker that carries the original size. Documented in README ("Storage
 * limits") and docs/STORAGE.md. Also what one page of a stored listing reads
 * (PAGE_BUDGET_BYTES).
 */

/** The platform's limit for one string, BLOB or row; debug mode refuses any bound value over it. */
export const MAX_CELL_BYTES = 2_000_000;

/** What one row written by Switchboard aims under, leaving room for its other columns. */
export const ROW_BUDGET_BYTES = 1_900_000;

/** One tool result, as stored on its `tool_calls` row (JSON-encoded content). */
export const RESULT_BUDGET_BYTES = 256 * 1024;

/**
 * All tool results of one user message together (JSON-encoded contents).
 * When they exceed it, small results stay whole and the larger ones share the
 * rest equally. With USER_PARTS_BUDGET_BYTES for the user's own parts, a
 * message row stays under ROW_BUDGET_BYTES.
 */
export const MESSAGE_RESULTS_BUDGET_BYTES = 768 * 1024;

/** The user's own parts of one message (text etc., JSON-encoded); more is refused with 413 `message_too_large`. */
export const USER_PARTS_BUDGET_BYTES = 1_000_000;

/**
 * The tool names one `tools_changed` notice lists (in its `added`/`removed` arrays and its text together). A
 * larger change lists the first names that fit, says how many more, and records the whole tool set after it
 * (`tools`, at most every tool an agent can have: 5,000 own plus 20 MCP servers of 200, names of at most 64
 * characters, ~0.6 MB), so the notice stays far below what a row leaves beside the user's own parts.
 */
export const NOTICE_NAMES_BUDGET_BYTES = 32 * 1024;

/**
 * A compaction summary (JSON-encoded). Our own is stored in its record's row beside the tool snapshot (whose kept
 * declarations fit what it leaves): a longer one is cut. A provider's compaction part (in its assistant message's
 * row, its content in its record's) must go back as issued: a larger one is dropped as a failed compaction. Only a
 * window of millions of tokens produces either.
 */
export const SUMMARY_BUDGET_BYTES = 1_000_000;

/**
 * The provider view a session object holds in memory: the `parts` of the messages since the latest compaction, as
 * stored. A step whose view is larger compacts first, whatever the model's window, and a compaction keeps at most
 * half of it and sends at most half of it per summary request (`compaction/compactor.ts`). The object has 128 MB:
 * a step holds its view parsed (about its stored size; up to twice that as two-byte strings), the request body
 * built from it and that body encoded for the wire, so a view at this budget plus one step's growth (two rows)
 * peaks near 50–65 MB, leaving room for the streams (at most 8 × 5 MiB, stream/subscribers.ts). A window of up to ~3.7M
 * tokens at the default threshold (4 bytes a token of ASCII) compacts by its tokens first; only a larger one (10M
 * are accepted) reaches this.
 */
export const MAX_VIEW_BYTES = 12_000_000;

/** A turn's json_schema (JSON-encoded); more is refused with 413 `schema_too_large`. */
export const JSON_SCHEMA_BUDGET_BYTES = 1_000_000;

/** One stream-log row (one SSE frame); longer deltas are split over several rows. */
export const STREAM_ROW_BUDGET_BYTES = 512 * 1024;

/**
 * A client tool's call input (JSON-encoded). The client gets it in one stream frame, which lives in one stream-log
 * row; the 4 KiB left below STREAM_ROW_BUDGET_BYTES hold the frame's other fields (ids, the tool's name). A larger
 * input is refused as an invalid call the model can correct, never handed to the client cut.
 */
export const CLIENT_INPUT_BUDGET_BYTES = STREAM_ROW_BUDGET_BYTES - 4 * 1024;

/** The `data` of one session event. */
export const EVENT_BUDGET_BYTES = 64 * 1024;

/**
 * A run's result (final text, structured result) and a turn's structured result. A structured result is never
 * cut (it would no longer match its schema): it is at most STRUCTURED_RESULT_BUDGET_BYTES, and a run's final
 * text gets what it leaves of this budget.
 */
export const RUN_RESULT_BUDGET_BYTES = 512 * 1024;

/**
 * A structured_output value (JSON-encoded); a larger valid call is refused as an invalid call the model can
 * correct. The 12 KiB left below RUN_RESULT_BUDGET_BYTES and STREAM_ROW_BUDGET_BYTES hold what the stores add
 * (the stream chunk's frame, a run's final text and usage), so every store keeps the value whole.
 */
export const STRUCTURED_RESULT_BUDGET_BYTES = 500 * 1024;

/** An error record (a turn's or run's error, a callback attempt's error text). */
export const ERROR_BUDGET_BYTES = 16 * 1024;

/**
 * An approval's `resolved_input`, shown to the person only (the call resolves its references again when it runs):
 * one per approval-gated call, each possibly a copy of a large referenced result, so each is kept small.
 */
export const RESOLVED_INPUT_BUDGET_BYTES = 64 * 1024;

/**
 * What one page of a stored listing holds at most, in bytes of the stored values (always at least one item; see
 * storage/page.ts `pageEnd`): GET /messages (messages' parts), GET /events (events' data), GET /v1/agents (configs).
 * A page of 1,000 messages of up to ROW_BUDGET_BYTES, or of 1,000 events of EVENT_BUDGET_BYTES, would be far past
 * the 32 MiB a Durable Object's RPC answer may be (V8 may serialize a string at two bytes a character: this stays
 * under half of it) and built whole in the object's 128 MB. A page it cuts has a `next`, as one cut by its `limit`.
 */
export const PAGE_BUDGET_BYTES = 8_000_000;

/** An idempotency key (`Idempotency-Key`, a webhook's `webhook-id`): 1 to this many characters, stored with its turn or run. */
export const MAX_KEY_CHARS = 255;
