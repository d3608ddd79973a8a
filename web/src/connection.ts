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
 * The connection a `#session=…&token=…` fragment carries, stored for the tab, and the fragment out of the address
 * bar (`replaceState`, no reload, no history entry): the token must not stay on screen, in a screenshot, a bookmark
 * or a copied link. Null when the fragment carries no connection (nothing is stored or changed).
 */
export function takeLink(
  place: Pick<Location, "hash" | "pathname" | "search">,
  storage: Pick<Storage, "setItem">,
  history: Pick<History, "replaceState">,
): Connection | null {
  const params = new URLSearchParams(place.hash.replace(/^#/, ""));
  const session = params.get("session");
  const token = params.get("token");
  if (!session || !token) return null;
  const conn = { session, token };
  storage.setItem(STORAGE_KEY, JSON.stringify(conn));
  history.replaceState(null, "", place.pathname + place.search);
  return conn;
}

/**
 * Reads the connection from `#session=…&token=…` (takeLink), else from this tab's storage; null when neither has
 * one.
 */
export function readConnection(
  place: Pick<Location, "hash" | "pathname" | "search">,
  storage: Pick<Storage, "getItem" | "setItem">,
  history: Pick<History, "replaceState">,
): Connection | null {
  const linked = takeLink(place, storage, history);
  if (linked) return linked;
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
