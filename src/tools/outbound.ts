/**
 * Outbound URL policy for tools, MCP servers and callbacks. Production only
 * talks https to public hosts; local development (SWITCHBOARD_ALLOW_PRIVATE_URLS)
 * may use loopback and private addresses.
 */
export function checkOutboundUrl(raw: string, allowPrivate: boolean): string | null {
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
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) {
    return "private or loopback host";
  }
  if (isPrivateIp(host)) return "private, loopback or link-local address";
  return null;
}

function isPrivateIp(host: string): boolean {
  if (host.includes(":")) {
    return host === "::" || host === "::1" || /^(fc|fd|fe8|fe9|fea|feb)/.test(host) || host.startsWith("::ffff:");
  }
  // WHATWG URL parsing already normalised decimal/hex/octal IPv4 forms to dotted quads.
  const m = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224
  );
}
