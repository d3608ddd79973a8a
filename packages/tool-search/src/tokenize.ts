// Tokenising for tool search: identifiers (snake_case, kebab-case, `mcp__server__tool`, camelCase, PascalCase,
// acronyms, digits) and prose go through the same splitter, so a query word meets a name part whatever way the
// name was written.

import { stem } from "./stem.ts";

// Letters and digits of any script; everything else separates tokens. Apostrophes inside words are dropped first
// ("don't" → "dont", "user's" → "users") so they do not leave one-letter fragments.
const CHUNK = /[\p{L}\p{N}]+/gu;
const CHUNK_ASCII = /[A-Za-z0-9]+/g; // same result on ASCII text, several times faster
const NON_ASCII = /[^\p{ASCII}]/u;
const APOSTROPHE = /(?<=[\p{L}\p{N}])['’](?=[\p{L}])/gu;
// Boundaries inside one chunk: lower→Upper ("getUser"), Upper→Upper+lower ("HTTPServer" → HTTP|Server),
// letter↔digit ("v2", "ipv4" → ipv|4, "3d" → 3|d).
const CAMEL =
  /(?<=[\p{Ll}])(?=[\p{Lu}])|(?<=[\p{Lu}])(?=[\p{Lu}][\p{Ll}])|(?<=[\p{L}])(?=[\p{N}])|(?<=[\p{N}])(?=[\p{L}])/u;

const PLAIN = /^(?:[a-z]+|[0-9]+)$/;
// Chinese and Japanese scripts do not separate words with spaces: each character is its own token there.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/u;

/**
 * Splits text or an identifier into lowercase tokens: on every non-alphanumeric character (so `_`, `-`, `__`,
 * `.`, `/`, spaces), then on camelCase / acronym / letter-digit boundaries.
 *
 *   tokenize("mcp__github__create_issue") → ["mcp", "github", "create", "issue"]
 *   tokenize("getHTTPResponse2") → ["get", "http", "response", "2"]
 *   tokenize("查询天气") → ["查", "询", "天", "气"]
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const clean = text.includes("'") || text.includes("’") ? text.replace(APOSTROPHE, "") : text;
  const chunks = clean.match(NON_ASCII.test(clean) ? CHUNK : CHUNK_ASCII);
  if (!chunks) return out;
  for (const chunk of chunks) {
    if (PLAIN.test(chunk)) {
      out.push(chunk); // the common case: a lowercase word or a number, nothing to split
      continue;
    }
    if (CJK.test(chunk)) {
      for (const piece of chunk.split(CJK_SPLIT)) {
        if (!piece) continue;
        if (CJK.test(piece)) out.push(piece);
        else for (const part of piece.split(CAMEL)) if (part) out.push(part.toLowerCase());
      }
      continue;
    }
    for (const part of chunk.split(CAMEL)) if (part) out.push(part.toLowerCase());
  }
  return out;
}

// A compact English stopword list (function words and question/request filler that carries no topic). Kept short on
// purpose: words such as "get", "find", "search", "create" or "list" are verbs tool names use, and stay.
const STOPWORD_LIST =
  "a about above after again against all am an and any are as at be because been before being below between both " +
  "but by can could did do does doing down during each few for from further had has have having he her here hers " +
  "herself him himself his how i if in into is it its itself just let me might more most must my myself no nor not " +
  "now of off on once only or other our ours ourselves out over own please same she should so some such than that " +
  "the their theirs them themselves then there these they this those through to too under until up very was we " +
  "were what when where which while who whom why will with would you your yours yourself yourselves also may shall " +
  // Contractions, as tokenize leaves them once the apostrophe is gone ("don't" → "dont").
  "dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt hasnt havent hadnt im ive youre " +
  "youve whats thats theres lets " +
  // Greetings and politeness around a request.
  "hey hi hello thanks thank kindly";

export const STOPWORDS: ReadonlySet<string> = new Set(STOPWORD_LIST.split(" "));

/** A token as it is indexed: stemmed, digits kept as they are. */
export function normalizeTerm(token: string): string {
  return stem(token);
}

/** Tokens → index terms: stopwords dropped, the rest stemmed. */
export function analyzeTokens(tokens: readonly string[], keepStopwords = false): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    if (!keepStopwords && STOPWORDS.has(t)) continue;
    out.push(normalizeTerm(t));
  }
  return out;
}

/** Text → index terms (tokenize, drop stopwords, stem). */
export function analyze(text: string): string[] {
  return analyzeTokens(tokenize(text));
}
