/**
 * `withTimeout`: a promise that rejects like an MCP request timeout (the SDK's `ErrorCode.RequestTimeout`) when
 * another takes too long.
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

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
