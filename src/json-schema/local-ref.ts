/**
 * Local `$ref`s read by hand, where a schema's shape matters outside the validator: whether a root union describes
 * objects (compile.ts `objectRootProblem`) and the root a provider is sent (providers/declared-schema.ts). Both
 * follow a chain of refs (`A` → `B` → the object) equally far, so a union accepted as objects is sent with its
 * branches' fields.
 */
import { valueAt } from "./reduce-issues";

/** How far `$ref`s (and, in compile.ts, nested unions) are followed to decide a root's shape. */
export const MAX_SHAPE_DEPTH = 32;

/**
 * What a local `$ref` ("#" or "#/…", a JSON pointer into `root`, percent-decoded) names; undefined for anything
 * else: not a string, not local, an anchor, a bad escape, nothing there (the tree check reports the bad ones).
 */
export function localRefTarget(root: unknown, ref: unknown): unknown {
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  return pointer === "" || pointer.startsWith("/") ? valueAt(root, pointer) : undefined;
}
