// Tool results of dense content, as an `http` tool of the tool endpoint answers them (POST /_tool?dense=N&kind=K):
// N lines or records of what a real tokenizer reads far denser than ~4 characters a token (o200k: a UUID list ~2.5x,
// base64 ~2.7x, JSON records of ids, amounts and timestamps ~1.8x). Deterministic for the same call and N.

export type DenseKind = "uuids" | "base64" | "records";

export const DENSE_KINDS: readonly DenseKind[] = ["uuids", "base64", "records"];

/** A seeded generator of numbers in [0, 1) (a linear congruential one: the same seed, the same sequence). */
function seeded(seed: number): () => number {
  let state = seed % 2147483648;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** FNV-1a of `text`: the seed of one call's content. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** N items of `kind` for the call whose body is `seedText`. */
export function denseData(kind: DenseKind, n: number, seedText: string): string {
  const rnd = seeded(hash(seedText) + n);
  const hex = (len: number) => Array.from({ length: len }, () => "0123456789abcdef"[Math.floor(rnd() * 16)]).join("");
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  if (kind === "base64") {
    return Buffer.from(Array.from({ length: n * 28 }, () => Math.floor(rnd() * 256))).toString("base64");
  }
  if (kind === "uuids") return Array.from({ length: n }, uuid).join("\n");
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      id: uuid(),
      order: `ord_${hex(12)}`,
      amount: Math.round(rnd() * 1e7) / 100,
      status: i % 3 ? "shipped" : "pending",
      created_at: new Date(1.7e12 + Math.floor(rnd() * 3e10)).toISOString(),
    })),
  );
}
