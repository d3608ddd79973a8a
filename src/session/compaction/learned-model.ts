/**
 * The stored record of what the provider's answers taught of the session's model (`meta.context_learned`, JSON):
 * the model it is true of (`modelKey`), the window a context-length error named, and the calibration ratio of our
 * token estimate (`calibration`: what the provider counts per token of it). Written when either is learned or the
 * ratio moves by a step (`ContextBudget`: never on every request), deleted by `clear` (a wipe takes it with the
 * rest), read once when the object starts, so a restarted object sizes its requests by what it already met
 * rather than meet it again.
 */
import { contextWindow, type ModelConfig } from "../../providers/types";
import { deleteMeta, metaValue, setMeta } from "../../storage/meta";

/** meta key: what the provider taught of the model (`Learned`, as JSON). */
const LEARNED_KEY = "context_learned";

export interface Learned {
  /** The model it is true of (`modelKey`: provider, name, configured window). */
  model: string;
  /** The window a context-length error named; null when none did. */
  window: number | null;
  /** The provider's tokens per token of our estimate, at least 1 (1 until a report or an error says more). */
  ratio: number;
}

/**
 * What a learned window or a usage report is true of: the model as the agent names and sizes it (provider, name,
 * configured window). Its base URL is the Worker's (ANTHROPIC_BASE_URL, OPENAI_BASE_URL), the same for as long as
 * this object lives (another value is another deployment, whose new instance remembers nothing), so the provider
 * stands for it.
 */
export function modelKey(model: ModelConfig): string {
  return JSON.stringify([model.provider, model.name, contextWindow(model)]);
}

const positive = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v > 0;

/** The stored record, or null when none is (or it is not one this version reads). */
export function readLearned(sql: SqlStorage): Learned | null {
  const stored = metaValue(sql, LEARNED_KEY);
  if (stored === null) return null;
  try {
    const v = JSON.parse(stored) as Partial<Learned>;
    if (typeof v.model !== "string") return null;
    return {
      model: v.model,
      window: positive(v.window) ? v.window : null,
      ratio: positive(v.ratio) ? Math.max(1, v.ratio) : 1,
    };
  } catch {
    return null;
  }
}

export function writeLearned(sql: SqlStorage, learned: Learned): void {
  setMeta(sql, LEARNED_KEY, JSON.stringify(learned));
}

export function clearLearned(sql: SqlStorage): void {
  deleteMeta(sql, LEARNED_KEY);
}
