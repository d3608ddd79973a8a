// `RetryRead`: the chat app's Retry button for a first read of the session that failed (App.tsx shows it when trying
// again can help).
import { useEffect, useState } from "react";

/**
 * Retry for a first history read that failed (unreachable, a server error, rate-limited): enabled once the
 * response's Retry-After has passed.
 */
export function RetryRead({ afterS, retry }: { afterS: number; retry: () => void }) {
  const [open, setOpen] = useState(afterS === 0);
  useEffect(() => {
    if (afterS === 0) return;
    const timer = setTimeout(() => setOpen(true), afterS * 1000);
    return () => clearTimeout(timer);
  }, [afterS]);
  return (
    <button type="button" disabled={!open} onClick={retry}>
      Retry
    </button>
  );
}
