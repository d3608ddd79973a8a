/** The operation of routes/tokens.ts: a tenant API key mints a short-lived session token. */
import { body, jsonOf, ref } from "./content";
import { op } from "./operation";
import { SESSION } from "./parameters";

export const mintToken = op(
  "mintToken",
  "Mint a short-lived session token (tenant API key only)",
  { "201": jsonOf(ref("Token"), "The token") },
  { parameters: [SESSION], requestBody: body("CreateTokenBody") },
);
