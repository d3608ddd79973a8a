/**
 * Small helpers of the MCP client: `fingerprint` digests a server config (URL and headers) into the key of its
 * cached tool list, storing no header value; `withTimeout` rejects like an MCP request timeout (the SDK's `ErrorCode.RequestTimeout`) when a
 * promise takes too long.
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../agents/types";
import { cyrb53 } from "../crypto/cyrb53";

/** Identifies a server config; a changed URL or header invalidates its cached tool list. */
export function fingerprint(s: McpServerConfig): string {
  // A digest, so header values are never stored.
  return cyrb53(JSON.stringify([s.url, Object.entries(s.headers ?? {}).sort()]));
}

/** Rejects like an MCP request timeout (`ErrorCode.RequestTimeout`) when `p` takes longer than `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: ErrorCode.RequestTimeout })),
      ms,
    );
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
