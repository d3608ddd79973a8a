/**
 * `fingerprint` digests an MCP server config (URL and headers) into the key of its cached tool list, storing no
 * header value.
 */
import type { McpServerConfig } from "../agents/types";
import { cyrb53 } from "../crypto/cyrb53";

/** Identifies a server config; a changed URL or header invalidates its cached tool list. */
export function fingerprint(s: McpServerConfig): string {
  // A digest, so header values are never stored.
  return cyrb53(JSON.stringify([s.url, Object.entries(s.headers ?? {}).sort()]));
}
