/**
 * Which browser origins a tenant's CORS list may hold: one rule for the list (`PUT /v1/tenants/{tenant}/cors`) and
 * for the Origin of each request matched against it (directory.ts), so an origin that could never be listed is
 * refused without a lookup. The match is exact, of the lowercase string as written, so an origin is written as
 * browsers send it: `scheme://host[:port]`, lowercase, no path.
 *
 * - `https://host[:port]`, as the URL parser serializes it (`https://app.example.com`, `https://tauri.localhost`);
 * - `http://` on loopback only (local development): `localhost`, `127.0.0.1`, `[::1]`, and any `<name>.localhost`,
 *   which browsers resolve to loopback and treat as a secure context as they do `localhost` (RFC 6761), e.g.
 *   `http://tauri.localhost` (Tauri on Windows);
 * - an app's own scheme (web-view apps): `capacitor://localhost`, `ionic://localhost` (Capacitor, Ionic on iOS),
 *   `tauri://localhost` (Tauri on macOS, Linux). The URL parser gives such an origin as "null", so it is compared as
 *   written, never through that.
 *
 * Never `null` (the origin of sandboxed frames, files, `data:` pages and some redirects: any page can send it), the
 * schemes of no app's own origin (`file:`, `data:`, `blob:`, `ws:` …), a path, query, fragment, credentials or a
 * wildcard.
 */

/** Hosts plain http may name besides `<name>.localhost`. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Schemes that are no app's own origin: browsers send `null` for them, or never send them as an Origin. */
const NOT_AN_APP = new Set(["file", "data", "blob", "about", "javascript", "ftp", "ws", "wss"]);

/** An app's own scheme's origin: `scheme://host[:port]`, lowercase, the host dot-separated letters, digits, `-`. */
const APP_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

const loopback = (host: string) => LOOPBACK.has(host) || /^[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost$/.test(host);

/** Why `origin` can be no entry of a CORS list, or null when it can be one. */
export function originProblem(origin: string): string | null {
  if (origin === "null") return `"null" is sent by sandboxed frames and local files, which any page can be`;
  if (origin.includes("*")) return "wildcards are not allowed: list each origin";
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return "not a valid origin";
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https" || scheme === "http") {
    if (scheme === "http" && !loopback(url.hostname)) {
      return "origins must be https (http only for localhost, *.localhost, 127.0.0.1 and [::1])";
    }
    return url.origin === origin ? null : `write the origin exactly as "${url.origin}"`;
  }
  if (NOT_AN_APP.has(scheme)) return `${scheme}: pages have no origin that can be allowed`;
  if (!APP_ORIGIN.test(origin)) {
    return "an app's own scheme is written scheme://host[:port], lowercase, with no path, query or credentials";
  }
  return null;
}
