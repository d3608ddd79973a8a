import { Hono } from "hono";
import { nowIso } from "../../storage/sql";
import type { AppEnv } from "../app";
import { newApiKey, requireAdmin, sha256Hex } from "../auth";
import { forgetKey } from "../directory";
import { ApiError } from "../errors";
import { readBody } from "../validate";

export const keysRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .post("/", async (c) => {
    const body = await readBody<{ tenant: string; name?: string; rate_limit_per_min?: number | null }>(
      c,
      "createKeyBody",
    );
    const rateLimit = body.rate_limit_per_min ?? null;
    const id = `key_${crypto.randomUUID().replaceAll("-", "")}`;
    const key = newApiKey();
    await c.env.DB.prepare(
      "INSERT INTO api_keys (id, tenant, name, key_hash, created_at, rate_limit_per_min) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .bind(id, body.tenant, body.name ?? null, await sha256Hex(key), nowIso(), rateLimit)
      .run();
    return c.json({ id, key, tenant: body.tenant, name: body.name ?? null, rate_limit_per_min: rateLimit }, 201);
  })
  .get("/", async (c) => {
    const { results } = await c.env.DB.prepare(
      "SELECT id, tenant, name, created_at, revoked_at, rate_limit_per_min FROM api_keys ORDER BY created_at",
    ).all();
    return c.json({ keys: results });
  })
  .delete("/:id", async (c) => {
    const res = await c.env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
      .bind(nowIso(), c.req.param("id"))
      .run();
    if (!res.meta.changes) throw new ApiError(404, "not_found", "no active key with that id");
    // Other isolates stop accepting it within the cache bound (directory.ts); this one at once.
    forgetKey(c.req.param("id"));
    return c.json({ id: c.req.param("id"), revoked: true });
  });
