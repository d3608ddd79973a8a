/**
 * Admin routes for tenants' API keys under /v1/keys (requireAdmin): create (the plaintext key is returned
 * once, only its SHA-256 is stored), list and revoke. A revoked key stops working at once in this isolate and
 * in the others within the directory cache bound; so does one whose revoke answered 503 but was written.
 */
import { Hono } from "hono";
import { newId } from "../../crypto/new-id";
import { sha256Hex } from "../../crypto/sha256";
import { insertKey, listKeys, revokeKey } from "../../d1/keys";
import { nowIso } from "../../storage/sql";
import { newApiKey, requireAdmin } from "../auth";
import { forgetKey } from "../directory";
import { ApiError } from "../errors";
import type { AppEnv } from "../types";
import { readBody } from "../validate";

export const keysRoutes = new Hono<AppEnv>()
  .post("/", requireAdmin(), async (c) => {
    const body = await readBody<{ tenant: string; name?: string; rate_limit_per_min?: number | null }>(
      c,
      "createKeyBody",
    );
    const rateLimit = body.rate_limit_per_min ?? null;
    const id = newId("key");
    const key = newApiKey();
    await insertKey(c.env.DB, {
      id,
      tenant: body.tenant,
      name: body.name ?? null,
      keyHash: await sha256Hex(key),
      createdAt: nowIso(),
      rateLimitPerMin: rateLimit,
    });
    return c.json({ id, key, tenant: body.tenant, name: body.name ?? null, rate_limit_per_min: rateLimit }, 201);
  })
  .get("/", requireAdmin(), async (c) => {
    return c.json({ keys: await listKeys(c.env.DB) });
  })
  .delete("/:id", requireAdmin(), async (c) => {
    const id = c.req.param("id");
    // Other isolates stop accepting it within the cache bound (directory.ts); this one at once. Forgotten whatever D1
    // answers: a revoke answered 503 may still have been written, and its retry then finds no active key (404).
    const revoked = await revokeKey(c.env.DB, id, nowIso()).finally(() => forgetKey(id));
    if (!revoked) throw new ApiError(404, "not_found", "no active key with that id");
    return c.json({ id, revoked: true });
  });
