/**
 * Outbound URL policy for tools, MCP servers and callbacks. Production only
 * talks https to public hosts; local development (SWITCHBOARD_ALLOW_PRIVATE_URLS)
 * may use loopback and private addresses. Callers never follow redirects
 * (`redirect: "manual"`; a 3xx is an error result): a redirect target was not
 * checked by this policy. The one exception is the MCP SDK's own following of a
 * redirect within the server's origin (mcp/connection.ts): same host, same verdict.
 */

const MAX_URL_CHARS = 4096;

/** Names that resolve to the local machine or a private network by convention. */
const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa", ".lan"];

/**
 * Returns why `raw` may not be called, or null when it may. Checks the URL
 * after WHATWG parsing, which is what fetch uses: decimal, octal, hex and
 * short IPv4 forms (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are already
 * dotted quads, IPv6 is compressed lower-case hex (`::ffff:127.0.0.1` becomes
 * `::ffff:7f00:1`), full-width and percent-encoded digits are decoded, and a
 * trailing dot is dropped from IPv4 (kept on names, so every trailing dot is stripped here).
 *
 * Names are not resolved (Workers has no DNS API): a public name pointing at
 * a private address is not caught here. On Cloudflare, Workers' fetch leaves
 * from Cloudflare's network, where private ranges of the customer are not
 * reachable; this policy stops the literal and conventional forms.
 */
export function checkOutboundUrl(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_URL_CHARS) return `URL longer than ${MAX_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not a valid URL";
  }
  if (url.username || url.password) return "credentials in URLs are not allowed";
  if (allowPrivate)
    return url.protocol === "https:" || url.protocol === "http:" ? null : "only http(s) URLs are allowed";
  if (url.protocol !== "https:") return "only https URLs are allowed";
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (host.startsWith("[")) return ipv6Problem(host.slice(1, -1));
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return isSpecialIpv4(host.split(".").map(Number)) ? PRIVATE_IP : null;
  if (host === "localhost" || PRIVATE_SUFFIXES.some((s) => host.endsWith(s))) return "private or loopback host";
  if (!host.includes(".")) return "single-label host names are not allowed";
  return null;
}

const PRIVATE_IP = "private, loopback, link-local or reserved address";

/** IPv4 ranges that are not public unicast (RFC 6890 special-purpose registry). */
function isSpecialIpv4(q: number[]): boolean {
  const [a = 0, b = 0, c = 0] = q;
  return (
    a === 0 || // "this network", 0.0.0.0
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

/** Eight 16-bit groups of an IPv6 address as the URL parser prints it; null if it is not one. */
export function parseIpv6(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string | undefined): number[] | null => {
    if (!part) return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const fill = 8 - head.length - tail.length;
  return fill >= 1 ? [...head, ...new Array<number>(fill).fill(0), ...tail] : null;
}

function embeddedIpv4(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

/**
 * IPv6 forms that reach loopback, private or IPv4 space: unspecified,
 * loopback, IPv4-mapped/-compatible/-translated (refused outright: use the
 * IPv4 address), NAT64 and 6to4 with a special IPv4 inside, Teredo, ULA,
 * link-local, site-local, multicast, discard and documentation prefixes.
 */
function ipv6Problem(text: string): string | null {
  const h = parseIpv6(text);
  if (!h) return "not a valid IPv6 address";
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  const zeroTo = (n: number) => h.slice(0, n).every((g) => g === 0);
  if (zeroTo(8) || (zeroTo(7) && h7 === 1)) return PRIVATE_IP;
  if (zeroTo(5) && (h5 === 0xffff || h5 === 0)) return "IPv4-mapped or IPv4-compatible IPv6 addresses are not allowed";
  if (zeroTo(4) && h4 === 0xffff && h5 === 0) return "IPv4-translated IPv6 addresses are not allowed";
  if (h0 === 0x64 && h1 === 0xff9b) {
    if (h2 === 1) return PRIVATE_IP; // 64:ff9b:1::/48, local-use NAT64
    if (h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0 && isSpecialIpv4(embeddedIpv4(h6, h7))) return PRIVATE_IP;
  }
  if (h0 === 0x2002 && isSpecialIpv4(embeddedIpv4(h1, h2))) return PRIVATE_IP; // 6to4
  if (h0 === 0x2001 && h1 === 0) return "Teredo IPv6 addresses are not allowed";
  if (h0 === 0x2001 && h1 === 0xdb8) return PRIVATE_IP; // documentation
  if (h0 === 0x100 && h1 === 0 && h2 === 0 && h3 === 0) return PRIVATE_IP; // discard-only
  if ((h0 & 0xfe00) === 0xfc00 || (h0 & 0xffc0) === 0xfe80 || (h0 & 0xffc0) === 0xfec0 || (h0 & 0xff00) === 0xff00) {
    return PRIVATE_IP; // unique-local, link-local, site-local, multicast
  }
  return null;
}
