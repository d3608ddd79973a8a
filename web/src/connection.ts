// Where the app gets its session and session token: the URL fragment (`#session=…&token=…`, never sent to
// a server and never logged), remembered for the tab in sessionStorage so a reload keeps working, and then
// removed from the address bar.
// The browser only ever holds a session token (scoped to one session and a few actions), never an API key.

export interface Connection {
  session: string;
  token: string;
}

const STORAGE_KEY = "switchboard.connection";

/**
 * Reads the connection from `#session=…&token=…`, else from this tab's storage; null when neither has one. One
 * read from the fragment is stored, and the fragment leaves the address bar (`replaceState`, no reload, no
 * history entry): the token must not stay on screen, in a screenshot, a bookmark or a copied link.
 */
export function readConnection(
  place: Pick<Location, "hash" | "pathname" | "search">,
  storage: Pick<Storage, "getItem" | "setItem">,
  history: Pick<History, "replaceState">,
): Connection | null {
  const params = new URLSearchParams(place.hash.replace(/^#/, ""));
  const session = params.get("session");
  const token = params.get("token");
  if (session && token) {
    const conn = { session, token };
    storage.setItem(STORAGE_KEY, JSON.stringify(conn));
    history.replaceState(null, "", place.pathname + place.search);
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
