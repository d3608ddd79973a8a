// The typed API client the e2e tests use: `openapi-fetch` over the types `openapi-typescript` generates from
// /openapi.json (test/helpers/openapi-types.ts; `npm run openapi:types` regenerates it, and
// test/e2e/openapi.test.ts fails when it is stale). Every answer is checked against what the document gives for
// its operation and status (checked-answer.ts), so an answer the document misdescribes fails.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { checkedAnswer } from "./checked-answer.ts";
import { type Document, servedDocument } from "./conformance.ts";
import type { paths } from "./openapi-types.ts";

export type ApiClient = Client<paths>;

/** A middleware that fails a request whose answer does not match the document (checked-answer.ts). */
function conformance(doc: Document): Middleware {
  return {
    onResponse: ({ request, response }) => checkedAnswer(doc, request.method, request.url, response),
  };
}

/** A typed client authenticated with `key` whose every answer is checked against the document. */
export async function typedClient(baseUrl: string, key: string): Promise<ApiClient> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });
  client.use(conformance(await servedDocument(baseUrl)));
  return client;
}
