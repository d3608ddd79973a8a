/**
 * Fitting values under a byte budget (src/storage/limits.ts). Sizes are UTF-8
 * bytes of the JSON encoding, which is what a cell holds. A cut text ends with
 * `[truncated: original N bytes]`, N being the UTF-8 size of the original
 * text; cutting an already cut text keeps the first N.
 */

const MARKER = /\n?\[truncated: original (\d+) bytes\]$/;

/** UTF-8 byte length without allocating. */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Bytes of the value's JSON encoding. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? "");
}

export function truncationMarker(originalBytes: number): string {
  return `\n[truncated: original ${originalBytes} bytes]`;
}

/** The longest prefix of `s` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
function prefix(s: string, maxBytes: number): string {
  let n = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + size > maxBytes) break;
    n += size;
    i += pair ? 2 : 1;
  }
  return s.slice(0, i);
}

/** `text` whose JSON encoding fits `budget` bytes: whole, or its head plus a truncation marker. */
export function cutText(text: string, budget: number): string {
  if (jsonBytes(text) <= budget) return text;
  const prior = MARKER.exec(text);
  const body = prior ? text.slice(0, prior.index) : text;
  const marker = truncationMarker(prior ? Number(prior[1]) : utf8Bytes(text));
  let keep = budget - jsonBytes(marker);
  while (keep > 0) {
    const out = prefix(body, keep) + marker;
    const over = jsonBytes(out) - budget;
    if (over <= 0) return out;
    // Escaping only grows a text, so dropping `over` raw bytes drops at least `over` encoded ones.
    keep -= over;
  }
  return marker.slice(1);
}

/** `text` in consecutive pieces whose JSON encodings each fit `budget` bytes; joined, they are `text`. */
export function splitText(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  const room = Math.max(budget - 2, 16);
  while (rest.length > 0) {
    let keep = room;
    let piece = prefix(rest, keep);
    for (let over = jsonBytes(piece) - budget; over > 0 && keep > 4; over = jsonBytes(piece) - budget) {
      keep -= over;
      piece = prefix(rest, keep);
    }
    if (piece.length === 0) piece = rest.slice(0, 1);
    pieces.push(piece);
    rest = rest.slice(piece.length);
  }
  return pieces;
}

/**
 * Splits `budget` over items of the given sizes: items at or under their fair
 * share keep their size, the larger ones share what is left equally.
 */
export function fairShares(sizes: readonly number[], budget: number): number[] {
  const caps = [...sizes];
  const order = sizes.map((_, i) => i).sort((a, b) => (sizes[a] as number) - (sizes[b] as number));
  let left = Math.max(0, budget);
  order.forEach((i, k) => {
    const cap = Math.min(sizes[i] as number, Math.floor(left / (order.length - k)));
    caps[i] = cap;
    left -= cap;
  });
  return caps;
}

/**
 * A JSON value that fits `budget` bytes: unchanged when it does, else with its
 * string leaves cut by fair shares of what the structure leaves over. A value
 * whose structure alone is over the budget becomes its cut JSON text.
 */
export function fitJson(value: unknown, budget: number): unknown {
  const total = jsonBytes(value);
  if (total <= budget) return value;
  const leaves: string[] = [];
  collect(value, leaves);
  const sizes = leaves.map(jsonBytes);
  const room = budget - (total - sizes.reduce((a, b) => a + b, 0));
  if (room <= 0 || leaves.length === 0) return cutText(JSON.stringify(value), budget);
  const caps = fairShares(sizes, room);
  let i = 0;
  const rebuild = (v: unknown): unknown => {
    if (typeof v === "string") {
      const k = i++;
      return (caps[k] as number) < (sizes[k] as number) ? cutText(v, caps[k] as number) : v;
    }
    if (Array.isArray(v)) return v.map(rebuild);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([key, child]) => [key, rebuild(child)]));
    }
    return v;
  };
  return rebuild(value);
}

function collect(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const c of v) collect(c, out);
  else if (v && typeof v === "object") for (const c of Object.values(v)) collect(c, out);
}
