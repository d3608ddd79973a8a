/**
 * Session Durable Object schema, append-only: a deployed migration is never
 * edited, a change is a new entry. `meta.schema_version` records how many ran.
 * Documented in docs/STORAGE.md.
 */
import { markedSizes, utf8Bytes } from "./fit";
import { RESULT_BUDGET_BYTES } from "./limits";
import { all, one, write } from "./sql";
import { transaction } from "./transaction";

/** A step is DDL, or a function for what DDL alone cannot say (it runs in the step's transaction). */
const MIGRATIONS: ReadonlyArray<string | ((sql: SqlStorage) => void)> = [
  `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    role TEXT NOT NULL,
    origin TEXT NOT NULL,
    turn_id TEXT,
    parts TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE tool_calls (
    id TEXT PRIMARY KEY,
    message_seq INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    turn_id TEXT,
    name TEXT NOT NULL,
    execution TEXT NOT NULL,
    state TEXT NOT NULL,
    result TEXT,
    is_error INTEGER NOT NULL DEFAULT 0,
    answered_seq INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX tool_calls_open ON tool_calls (state, message_seq, idx) WHERE answered_seq IS NULL;
  CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    kind TEXT NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0,
    max_steps INTEGER NOT NULL,
    first_message_seq INTEGER,
    log_start INTEGER NOT NULL,
    segment_start INTEGER NOT NULL,
    error TEXT,
    finish_reason TEXT,
    usage TEXT NOT NULL DEFAULT '{}',
    idempotency_key TEXT,
    body_hash TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT
  );
  CREATE UNIQUE INDEX turns_ord ON turns (ord);
  CREATE UNIQUE INDEX turns_idem ON turns (idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE TABLE stream_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id TEXT NOT NULL,
    chunk TEXT NOT NULL
  );
  CREATE INDEX stream_log_turn ON stream_log (turn_id, id);
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    at TEXT NOT NULL,
    turn_id TEXT,
    data TEXT NOT NULL
  );
  CREATE TABLE loaded_tools (
    name TEXT PRIMARY KEY,
    loaded_at TEXT NOT NULL,
    via TEXT NOT NULL
  );
  `,
  // v2: whether a loaded tool's schema was already written to history as a tool_declarations part.
  `ALTER TABLE loaded_tools ADD COLUMN declared INTEGER NOT NULL DEFAULT 0;`,
  // v3: structured output per turn: the JSON Schema it was asked for and the delivered value.
  `ALTER TABLE turns ADD COLUMN json_schema TEXT;
   ALTER TABLE turns ADD COLUMN structured_result TEXT;`,
  // v4: the alarm scheduler's jobs and webhook-triggered runs with their callback attempts (src/runs).
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     ref TEXT NOT NULL,
     due_at INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX jobs_due ON jobs (due_at);
   CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     status TEXT NOT NULL,
     input TEXT NOT NULL,
     json_schema TEXT,
     callback_url TEXT,
     webhook_id TEXT,
     turn_id TEXT,
     resumes INTEGER NOT NULL DEFAULT 0,
     result TEXT,
     error TEXT,
     callback_status TEXT,
     created_at TEXT NOT NULL,
     started_at TEXT,
     ended_at TEXT
   );
   CREATE INDEX runs_open ON runs (status) WHERE status IN ('queued', 'running');
   CREATE TABLE run_callbacks (
     run_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     at TEXT NOT NULL,
     status INTEGER,
     error TEXT,
     PRIMARY KEY (run_id, attempt)
   );`,
  // v5: MCP tool sources: per configured server its cached tool list, status and last error (src/mcp).
  `CREATE TABLE mcp_servers (
     name TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     status TEXT NOT NULL,
     tools TEXT NOT NULL,
     fetched_at INTEGER NOT NULL,
     error TEXT,
     timed_out INTEGER NOT NULL DEFAULT 0
   );`,
  // v6: compaction records: the provider view starts at the latest one's boundary (src/session/compaction).
  `CREATE TABLE compactions (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     boundary_seq INTEGER NOT NULL,
     summary TEXT NOT NULL,
     tokens_before INTEGER NOT NULL,
     tokens_after INTEGER NOT NULL,
     tools TEXT NOT NULL,
     native INTEGER NOT NULL DEFAULT 0,
     turn_id TEXT,
     created_at TEXT NOT NULL
   );`,
  // v7: human approval of tool calls (src/session/approval-store.ts): one row per call that needs a yes, the
  // signing key of this session's approval signatures, and the runs' "awaiting approval" notifications.
  `CREATE TABLE approvals (
     id TEXT PRIMARY KEY,
     call_id TEXT NOT NULL UNIQUE,
     turn_id TEXT NOT NULL,
     name TEXT NOT NULL,
     input TEXT NOT NULL,
     reason TEXT NOT NULL,
     signature TEXT NOT NULL,
     status TEXT NOT NULL,
     decided_reason TEXT,
     decided_by TEXT,
     requested_at TEXT NOT NULL,
     decided_at TEXT,
     expires_at INTEGER,
     executed_at TEXT
   );
   CREATE INDEX approvals_open ON approvals (status) WHERE status = 'pending';
   CREATE TABLE run_notices (
     run_id TEXT PRIMARY KEY,
     turn_id TEXT NOT NULL,
     webhook_id TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL,
     error TEXT
   );`,
  // v8: the session's own copy of its agent's config and the agent-config epoch it was read at,
  // so a turn needs no D1 read (src/session/agent-cache.ts).
  `CREATE TABLE agent_config (
     name TEXT PRIMARY KEY,
     config TEXT,
     epoch INTEGER NOT NULL,
     fetched_at TEXT NOT NULL
   );`,
  // v9: fewer rows written per turn (issue 10). The stream log is written in batches (one row per batch,
  // id = its last frame's id) and only the newest turns' logs are kept, so replay scans by id: its
  // (turn_id, id) index goes. Turns are ordered by rowid (see TurnStore.latest): turns_ord goes.
  `DROP INDEX IF EXISTS stream_log_turn;
   DROP INDEX IF EXISTS turns_ord;`,
  // v10: events and stream_log without AUTOINCREMENT (its sqlite_sequence update was a row written per
  // insert). Events are swept oldest-first, so the newest seq always remains; the stream log keeps its
  // highest id in meta.stream_log_floor when it is cleared. Rebuilt from their own DDL, so columns and
  // indexes added by earlier steps are kept.
  (sql) => {
    const seq = one<{ seq: number }>(sql, "SELECT seq FROM sqlite_sequence WHERE name = 'stream_log'")?.seq ?? 0;
    write(sql, "INSERT OR REPLACE INTO meta (key, value) VALUES ('stream_log_floor', ?)", String(seq));
    withoutAutoincrement(sql, "events");
    withoutAutoincrement(sql, "stream_log");
  },
  // v11: messages without AUTOINCREMENT too (2 rows written per text turn fewer). HistoryStore picks each seq
  // above the newest message and above meta.messages_floor, which `clear` raises to the highest seq it removed;
  // the floor starts at the sequence AUTOINCREMENT had reached, so no seq ever handed out is used again.
  (sql) => {
    const seq = one<{ seq: number }>(sql, "SELECT seq FROM sqlite_sequence WHERE name = 'messages'")?.seq ?? 0;
    write(sql, "INSERT OR REPLACE INTO meta (key, value) VALUES ('messages_floor', ?)", String(seq));
    withoutAutoincrement(sql, "messages");
  },
  // v12: the digest of the declaration a loaded tool's tool_declarations part carried, so a tool whose schema
  // changed since is declared again (message-level tools: history is where the model reads its schema).
  `ALTER TABLE loaded_tools ADD COLUMN declared_as TEXT;`,
  // v13: the arguments an approval's call will run with once its `$tool` references are resolved, shown to the
  // person beside the arguments as the model wrote them.
  `ALTER TABLE approvals ADD COLUMN resolved_input TEXT;`,
  // v14: whether a decision was already told on the turn's stream (at the pause of the step it was decided in,
  // while a sibling ran), so the segment that resumes the turn does not tell it again.
  `ALTER TABLE approvals ADD COLUMN announced INTEGER NOT NULL DEFAULT 0;`,
  // v15: whether a call's result was told on the turn's stream as its step ran (the session answered it, a client
  // tool's call with invalid arguments say), so the segment that resumes the turn does not tell it again.
  `ALTER TABLE tool_calls ADD COLUMN announced INTEGER NOT NULL DEFAULT 0;`,
  // v16: the open runs' index that the run store's queries use. v4's runs_open (queued and running, on status) was
  // used by none: SQLite reads a partial index only for a query that repeats its predicate, and the queries ask for
  // every open status (awaiting_approval came in v7). Its predicate is OPEN_RUN's list (src/session/runs/run-store.ts)
  // term for term; ordered by created_at, as the alarm reads the open runs; status makes it cover the queue count.
  `DROP INDEX IF EXISTS runs_open;
   CREATE INDEX runs_open_created ON runs (created_at, status) WHERE status IN ('queued', 'running', 'awaiting_approval');`,
  // v17: a compaction cut inside the running turn (at a step boundary) names the message holding the user's request
  // that turn answers: the view carries it verbatim after the summary.
  `ALTER TABLE compactions ADD COLUMN carried_seq INTEGER;`,
  // v18: whether a call's result was cut for storage, so a `$tool` reference to it is refused (HistoryStore sets it as
  // it stores the result). A result stored before is marked when it reads as one cut for storage (`storedCut`).
  (sql) => {
    sql.exec("ALTER TABLE tool_calls ADD COLUMN cut INTEGER NOT NULL DEFAULT 0");
    const ids: string[] = [];
    // Row by row (a cursor, not a list): each result may be up to 256 KiB.
    const rows = sql.exec<{ id: string; result: string }>(
      "SELECT id, result FROM tool_calls WHERE state = 'resolved' AND is_error = 0 AND result LIKE '%[truncated: original %'",
    );
    for (const row of rows) if (storedCut(row.result)) ids.push(row.id);
    for (const id of ids) write(sql, "UPDATE tool_calls SET cut = 1 WHERE id = ?", id);
  },
];

/**
 * Whether a stored result (JSON-encoded content) reads as one cut for storage: its text (the whole string, or its
 * first block) ends with a truncation marker naming more bytes than it keeps, and it fills at least half of the
 * budget (a cut fills it, less what escaping leaves over), so a short result that quotes a marker is not one.
 */
function storedCut(result: string): boolean {
  let content: unknown;
  try {
    content = JSON.parse(result);
  } catch {
    return false;
  }
  const first: unknown = Array.isArray(content) ? content[0] : content;
  const text = typeof first === "string" ? first : (first as { text?: unknown } | undefined)?.text;
  const sizes = typeof text === "string" ? markedSizes(text) : null;
  return sizes !== null && sizes.original > sizes.kept && utf8Bytes(result) >= RESULT_BUDGET_BYTES / 2;
}

/** Rebuilds `table` from its own DDL minus AUTOINCREMENT (rows, ids and indexes kept). */
function withoutAutoincrement(sql: SqlStorage, table: string): void {
  const ddl = one<{ sql: string }>(sql, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table)?.sql;
  if (!ddl) return;
  const indexes = all<{ sql: string }>(
    sql,
    "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    table,
  );
  const tmp = `${table}_rebuilt`;
  sql.exec(ddl.replace(/\bAUTOINCREMENT\b/i, "").replace(/^CREATE TABLE\s+("?)\w+\1/i, `CREATE TABLE ${tmp}`));
  sql.exec(`INSERT INTO ${tmp} SELECT * FROM ${table}`);
  sql.exec(`DROP TABLE ${table}`);
  sql.exec(`ALTER TABLE ${tmp} RENAME TO ${table}`);
  for (const i of indexes) sql.exec(i.sql);
}

/** Whether this object's database was ever set up (an object addressed by an unknown name has no tables). */
export function hasSchema(sql: SqlStorage): boolean {
  return one(sql, "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'meta'") !== null;
}

/** Runs the migrations this object has not seen yet, each in its own transaction. */
export function migrate(storage: DurableObjectStorage): void {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  const row = one<{ value: string }>(sql, "SELECT value FROM meta WHERE key = 'schema_version'");
  const current = row ? Number(row.value) : 0;
  for (let v = current; v < MIGRATIONS.length; v++) {
    const step = MIGRATIONS[v] as string | ((sql: SqlStorage) => void);
    transaction(storage, () => {
      if (typeof step === "string") sql.exec(step);
      else step(sql);
      write(sql, "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", String(v + 1));
    });
  }
}
