// Whether a process is still running, for tests that check what a process helper or `npm start` left behind.
import { existsSync, readFileSync } from "node:fs";

/** Running, not a zombie: an orphan whose exit nobody has reaped yet (some container inits never do) is gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return !existsSync("/proc/self/stat"); // no procfs (macOS): kill(0) is all there is
  }
}
