/**
 * The stored mark of a provider's compaction dropped as too large to store (`meta.native_dropped`: its size in
 * bytes), kept until our own summary compacts or the session is cleared, so an object that restarts meanwhile does
 * not ask the provider to compact again (`nativePlan`, native-plan.ts). Read once when the object starts.
 */
import { deleteMeta, metaValue, setMeta } from "../../storage/meta";

/** meta key: the size in bytes of the provider's compaction last dropped as too large to store. */
const DROPPED_NATIVE_KEY = "native_dropped";

/** The stored size of the provider's compaction last dropped, or null when none is marked. */
export function readDroppedNative(sql: SqlStorage): number | null {
  const value = metaValue(sql, DROPPED_NATIVE_KEY);
  return value === null ? null : Number(value);
}

export function writeDroppedNative(sql: SqlStorage, bytes: number): void {
  setMeta(sql, DROPPED_NATIVE_KEY, String(bytes));
}

export function clearDroppedNative(sql: SqlStorage): void {
  deleteMeta(sql, DROPPED_NATIVE_KEY);
}
