/**
 * `sqlList`: values of a TypeScript constant (a status set) as the SQL string literals of an `IN (…)`, so a query
 * names the set from the constant instead of spelling it again.
 */

/**
 * `values` as a list of SQL string literals (`'a', 'b'`). A partial index is used only by a query whose WHERE
 * repeats its predicate term for term: a list rendered here matches a literal one when it names the same values
 * in the same order.
 */
export function sqlList(values: readonly string[]): string {
  return values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", ");
}
