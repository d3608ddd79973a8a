// Where the app gets its session and session token: the URL fragment (`#session=…&token=…`, never sent to
// a server and never logged), remembered for the tab in sessionStorage so a reload keeps working.
// The browser only ever holds a session token (scoped to one session and a few actions), never an API key.

export interface Connection {
  session: string;
  token: string;
}

const STORAGE_KEY = "switchboard.connection";

/** Reads the connection from `#session=…&token=…`, else from this tab's storage; null when neither has one. */
export function readConnection(hash: string, storage: Pick<Storage, "getItem" | "setItem">): Connection | null {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const session = params.get("session");
  const token = params.get("token");
  if (session && token) {
    const conn = { session, token };
    storage.setItem(STORAGE_KEY, JSON.stringify(conn));
    return conn;
  }
  const saved = storage.getItem(STORAGE_KEY);
  if (!saved) return null;
  try {
    const parsed = JSON.parse(saved) as Partial<Connection>;
    return parsed.session && parsed.token ? { session: parsed.session, token: parsed.token } : null;
  } catch {
    return null;
  }
}

/** The session's base path, e.g. `/v1/sessions/demo`. */
export function sessionPath(conn: Connection): string {
  return `/v1/sessions/${encodeURIComponent(conn.session)}`;
}
