// Field analysis of one tool document: the raw words of its four fields (name parts, search_hint, description,
// parameter names + descriptions), their indexed terms, and the name keys that "the query names this tool" uses.

import { tokenize } from "./tokenize.ts";
import { analyzeList, type Tuning, termOf } from "./tuning.ts";

export interface SearchDoc {
  name: string;
  description: string;
  search_hint?: string;
  input_schema?: Record<string, unknown>;
}

/** Caps on what one tool contributes, so a huge schema cannot blow up the index. */
const MAX_FIELD_CHARS = 8_000;
const MAX_SCHEMA_DEPTH = 4;
const MAX_SCHEMA_PROPS = 200;

/** The raw tokens of a tool's fields, before stopwords and stemming. */
export interface FieldWords {
  doc: SearchDoc;
  name: string[];
  hint: string[];
  desc: string[];
  params: string[];
}

export function fieldWords(doc: SearchDoc): FieldWords {
  const hint = tokenize((doc.search_hint ?? "").slice(0, MAX_FIELD_CHARS));
  const desc = tokenize((doc.description ?? "").slice(0, MAX_FIELD_CHARS));
  const params = doc.input_schema ? tokenize(schemaText(doc.input_schema)) : [];
  const name = tokenize(doc.name);
  return { doc, name, hint, desc, params };
}

/**
 * Indexed terms per field, in field order. `splitCompound` adds the catalog words of run-together name parts to the
 * name field (when the tuning allows it).
 */
export function fieldTerms(words: FieldWords, tuning: Tuning, splitCompound: (chunk: string) => string[]): string[][] {
  const { name } = words;
  const nameList = name.slice();
  if (tuning.splitCompounds) for (const chunk of name) nameList.push(...splitCompound(chunk));
  let nameTerms = analyzeList(tuning, nameList);
  if (nameTerms.length === 0) nameTerms = name.map((x) => termOf(tuning, x)); // a name made only of stopwords
  return [
    nameTerms,
    analyzeList(tuning, words.hint),
    analyzeList(tuning, words.desc),
    analyzeList(tuning, words.params),
  ];
}

/** Text of a JSON Schema's properties: names, titles, descriptions and string enum/examples values; bounded. */
function schemaText(schema: unknown, depth = 0, budget = { props: 0 }): string {
  if (!schema || typeof schema !== "object" || depth > MAX_SCHEMA_DEPTH) return "";
  const s = schema as Record<string, unknown>;
  const parts: string[] = [];
  const props = s.properties;
  if (props && typeof props === "object") {
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      if (++budget.props > MAX_SCHEMA_PROPS) break;
      parts.push(k);
      if (v && typeof v === "object") {
        const prop = v as Record<string, unknown>;
        for (const key of ["title", "description"]) if (typeof prop[key] === "string") parts.push(prop[key]);
        // Allowed values name the domain ("genre": Horror, Comedy; "format": PNG, JPEG).
        for (const key of ["enum", "examples"]) {
          const list = prop[key];
          if (Array.isArray(list)) for (const x of list.slice(0, 50)) if (typeof x === "string") parts.push(x);
        }
        parts.push(schemaText(v, depth + 1, budget));
      }
    }
  }
  for (const key of ["items", "additionalProperties"]) {
    const sub = s[key];
    if (sub && typeof sub === "object") parts.push(schemaText(sub, depth + 1, budget));
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const arr = s[key];
    if (Array.isArray(arr)) for (const sub of arr) parts.push(schemaText(sub, depth + 1, budget));
  }
  return parts.filter(Boolean).join(" ").slice(0, MAX_FIELD_CHARS);
}

/** The name's tokens joined, and for namespaced names (`server__tool`) the same for the part after the last `__`. */
export function keysOf(name: string, nameToks: readonly string[]): string[] {
  const keys = [nameToks.join("")];
  const at = name.lastIndexOf("__");
  if (at > 0) {
    const tail = tokenize(name.slice(at + 2)).join("");
    if (tail && tail !== keys[0]) keys.push(tail);
  }
  return keys;
}
