/**
 * Debug/bench-only routes, served only by the app `buildApp({ debugSeed: true })`
 * builds when `SWITCHBOARD_DEBUG_SEED` is true (never part of the public API or
 * the OpenAPI document). `POST /v1/sessions/{id}/debug/seed` with
 * `{"turns": [{"user", "assistant"}, …]}` (1..500, each text 1..20,000
 * characters) writes finished text turns into the session's history
 * (src/session/debug-seed.ts); bench/compaction.mjs builds its 10,000-message
 * session with it.
 */
import { Hono } from "hono";
import { SEED_TURNS_MAX, type SeedTurn } from "../../session/debug-seed";
import { requireTenant } from "../auth";
import { ApiError } from "../errors";
import { sessionRef, unwrap } from "../session-ref";
import type { AppEnv } from "../types";
import { readJson } from "../validate";

const TEXT_MAX = 20_000;

function seedBody(value: unknown): SeedTurn[] {
  const turns = (value as { turns?: unknown } | null)?.turns;
  if (!Array.isArray(turns) || turns.length < 1 || turns.length > SEED_TURNS_MAX) {
    throw new ApiError(400, "invalid_request", `"turns" must be an array of 1..${SEED_TURNS_MAX} turns`);
  }
  const text = (v: unknown) => typeof v === "string" && v.length > 0 && v.length <= TEXT_MAX;
  return turns.map((t: unknown, i) => {
    const { user, assistant } = (t ?? {}) as { user?: unknown; assistant?: unknown };
    if (!text(user) || !text(assistant)) {
      throw new ApiError(400, "invalid_request", `turns[${i}] needs "user" and "assistant" texts of 1..${TEXT_MAX}`);
    }
    return { user: user as string, assistant: assistant as string };
  });
}

export const debugRoutes = new Hono<AppEnv>().post("/:id/debug/seed", requireTenant(), async (c) => {
  const ref = sessionRef(c);
  const turns = seedBody(await readJson(c));
  const { ok: _ok, ...seeded } = unwrap(await ref.stub.debugSeed(turns));
  return c.json({ id: ref.id, ...seeded });
});
