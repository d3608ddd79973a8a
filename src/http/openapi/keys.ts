/** The operations of routes/keys.ts: the admin creates, lists and revokes tenant API keys. */
import { body, jsonOf, ref } from "./content";
import { op } from "./operation";
import { pathParam } from "./parameters";

export const createKey = op(
  "createKey",
  "Create a tenant API key (admin)",
  { "201": jsonOf(ref("Key"), "The key; shown once") },
  {
    requestBody: body("CreateKeyBody"),
  },
);
export const listKeys = op("listKeys", "List keys (admin)", { "200": jsonOf(ref("KeyList"), "Keys, without secrets") });
export const revokeKey = op(
  "revokeKey",
  "Revoke a key (admin)",
  { "200": jsonOf(ref("Revoked"), "Revoked") },
  {
    parameters: [pathParam("id", "Key id")],
  },
);
