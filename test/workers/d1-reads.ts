// A D1 binding that counts the rows D1 says its statements read (meta.rows_read), for tests of how much a query
// reads: the statements `counts(query)` picks, run with all() or run() (first() reports no meta).

type Counted = "all" | "run";

export function readCounting(
  db: D1Database,
  counts: (query: string) => boolean,
): { db: D1Database; rowsRead: () => number } {
  let rows = 0;
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (key === "all" || key === "run") {
          return async () => {
            const result = await target[key as Counted]();
            rows += result.meta.rows_read;
            return result;
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const counted = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") {
        return (query: string) => (counts(query) ? statement(target.prepare(query)) : target.prepare(query));
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: counted, rowsRead: () => rows };
}
