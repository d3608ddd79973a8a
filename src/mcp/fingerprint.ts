/**
 * Small helpers of the MCP client: `fingerprint` digests a server config (URL and headers) into the key of its
 * cached tool list, storing no header value; `withTimeout` rejects like an MCP request timeout (-32001) when a
 * promise takes too long.
 */
import type { McpServerConfig } from "../agents/types";

/** cyrb53: a fast non-cryptographic hash, so header values are never stored, only this digest of them. */
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** Identifies a server config; a changed URL or header invalidates its cached tool list. */
export function fingerprint(s: McpServerConfig): string {
  return hash(JSON.stringify([s.url, Object.entries(s.headers ?? {}).sort()]));
}

/** Rejects like an MCP request timeout (code -32001) when `p` takes longer than `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: -32001 })), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
