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

/**
 * The first `max` UTF-16 units of `s`, one fewer where the cut would split a surrogate pair: a lone half is
 * not well-formed text, and a provider refuses the whole request that carries it (Anthropic: "no low surrogate").
 */
export function headChars(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = max > 0 && (s.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return s.slice(0, Math.max(0, end));
}

/** The longest head of `items` whose costs add up to at most `budget`. */
export function headWithin<T>(items: readonly T[], budget: number, cost: (item: T) => number): T[] {
  let used = 0;
  let i = 0;
  for (; i < items.length; i++) {
    const c = cost(items[i] as T);
    if (used + c > budget) break;
    used += c;
  }
  return items.slice(0, i);
}

/** Bytes of the value's JSON encoding. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? "");
}

function truncationMarker(originalBytes: number): string {
  return `\n[truncated: original ${originalBytes} bytes]`;
}

/**
 * What the truncation marker `text` ends with says: the UTF-8 bytes kept before it and the original's size; null
 * when it ends with none.
 */
export function markedSizes(text: string): { kept: number; original: number } | null {
  const marker = MARKER.exec(text);
  return marker ? { kept: utf8Bytes(text.slice(0, marker.index)), original: Number(marker[1]) } : null;
}

/** End index of the longest run of `s` from `start` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
function runEnd(s: string, start: number, maxBytes: number): number {
  let n = 0;
  let i = start;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (n + size > maxBytes) break;
    n += size;
    i += pair ? 2 : 1;
  }
  return i;
}

/**
 * The longest-found piece of `s` from `start` whose JSON encoding (plus `extra`
 * bytes) fits `budget`: starts from the raw byte count and shrinks in
 * proportion to how much escaping grew it, so it converges in a few rounds.
 */
export function fitPiece(s: string, start: number, budget: number, extra = 0): string {
  let keep = budget - extra - 2;
  let piece = s.slice(start, runEnd(s, start, keep));
  let size = jsonBytes(piece) + extra;
  while (size > budget && keep > 0) {
    keep = Math.min(keep - 1, Math.floor((keep * (budget - extra)) / (size - extra)));
    piece = s.slice(start, runEnd(s, start, keep));
    size = jsonBytes(piece) + extra;
  }
  return piece;
}

/** `text` whose JSON encoding fits `budget` bytes: whole, or its head plus a truncation marker. */
export function cutText(text: string, budget: number): string {
  if (jsonBytes(text) <= budget) return text;
  const prior = MARKER.exec(text);
  const body = prior ? text.slice(0, prior.index) : text;
  const marker = truncationMarker(prior ? Number(prior[1]) : utf8Bytes(text));
  return fitPiece(body, 0, budget, jsonBytes(marker) - 2) + marker;
}

/** `text` in consecutive pieces whose JSON encodings each fit `budget` bytes; joined, they are `text`. */
export function splitText(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let piece = fitPiece(text, at, Math.max(budget, 16));
    if (piece.length === 0) piece = text.slice(at, at + 1);
    pieces.push(piece);
    at += piece.length;
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
 * whose structure alone is over the budget, or whose cut leaves still are,
 * becomes its cut JSON text.
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
  const fitted = rebuild(value);
  // A leaf's share can be smaller than the truncation marker that replaces it (many tiny strings): then the
  // value's JSON text, cut, which always fits.
  return jsonBytes(fitted) <= budget ? fitted : cutText(JSON.stringify(value), budget);
}

function collect(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const c of v) collect(c, out);
  else if (v && typeof v === "object") for (const c of Object.values(v)) collect(c, out);
}
