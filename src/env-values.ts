/**
 * How the text of a worker variable reads as a setting: `flag` (on or off) and `positive` (a number above 0, else a
 * default). No imports, so modules that stay free of the Workers types (providers, MCP) share them with the rest.
 */

/** Whether a variable is on: `"true"` or `"1"`. */
export function flag(value: string | undefined): boolean {
  return value === "true" || value === "1";
}

/** A variable's number when it is one above 0, else `fallback` (unset, empty, not a number, 0 or less). */
export function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}
