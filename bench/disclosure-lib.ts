// Helpers for bench/disclosure.mjs: deterministic tool catalogs (a realistic 200-tool one and a compact one for
// search latency), example arguments that satisfy a generated schema, token counting (o200k via gpt-tokenizer) and
// readers for the parts of recorded wire bodies that make up the prompt-cache prefix.
// Erasable TypeScript with `.ts` imports only, so Node >= 22.18 loads it directly (type stripping).
import { encode } from "gpt-tokenizer";
import { mulberry32 } from "./random.ts";

export type JsonObject = Record<string, unknown>;

export interface GenTool {
  name: string;
  description: string;
  input_schema: JsonObject;
}

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

function shuffle<T>(rnd: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Field {
  name: string;
  schema: JsonObject;
}

interface ObjectSpec {
  singular: string;
  plural: string;
  statuses: string[];
  /** Fields a create/update call sets. */
  fields: Field[];
  sortable: string[];
}

interface Service {
  key: string;
  title: string;
  objects: ObjectSpec[];
}

const str = (description: string, extra: JsonObject = {}): JsonObject => ({ type: "string", description, ...extra });
const int = (description: string, minimum: number, maximum: number): JsonObject => ({
  type: "integer",
  description,
  minimum,
  maximum,
});
const bool = (description: string): JsonObject => ({ type: "boolean", description });
const enm = (description: string, values: string[]): JsonObject => ({ type: "string", enum: values, description });
const arr = (description: string, items: JsonObject): JsonObject => ({ type: "array", items, description });

function obj(singular: string, plural: string, statuses: string[], fields: Field[], sortable: string[]): ObjectSpec {
  return { singular, plural, statuses, fields, sortable };
}
const f = (name: string, schema: JsonObject): Field => ({ name, schema });

const SERVICES: Service[] = [
  {
    key: "crm",
    title: "the CRM",
    objects: [
      obj(
        "contact",
        "contacts",
        ["active", "unsubscribed", "bounced", "archived"],
        [
          f("email", str("Primary email address of the contact", { format: "email" })),
          f("full_name", str("First and last name")),
          f("phone", str("Phone number in E.164 format, e.g. +33142685300")),
          f("company_id", str("ID of the company the contact works for")),
          f("lifecycle_stage", enm("Where the contact is in the funnel", ["subscriber", "lead", "customer"])),
        ],
        ["created_at", "last_activity_at", "full_name"],
      ),
      obj(
        "deal",
        "deals",
        ["open", "won", "lost"],
        [
          f("title", str("Short name of the deal")),
          f("amount", { type: "number", minimum: 0, description: "Expected value in the deal currency" }),
          f("currency", enm("ISO 4217 currency code", ["USD", "EUR", "GBP", "JPY"])),
          f("stage", enm("Pipeline stage", ["qualification", "proposal", "negotiation", "closed"])),
          f("close_date", str("Expected close date", { format: "date" })),
        ],
        ["amount", "close_date", "created_at"],
      ),
      obj(
        "company",
        "companies",
        ["prospect", "customer", "churned"],
        [
          f("name", str("Legal or trading name of the company")),
          f("domain", str("Web domain, e.g. example.com")),
          f("industry", enm("Industry sector", ["software", "retail", "finance", "healthcare", "manufacturing"])),
          f("employee_count", int("Approximate number of employees", 1, 1000000)),
        ],
        ["name", "created_at", "employee_count"],
      ),
    ],
  },
  {
    key: "calendar",
    title: "Google Calendar",
    objects: [
      obj(
        "event",
        "events",
        ["confirmed", "tentative", "cancelled"],
        [
          f("summary", str("Title shown in the calendar")),
          f("start", str("Start time", { format: "date-time" })),
          f("end", str("End time", { format: "date-time" })),
          f("attendees", arr("Email addresses of the people to invite", { type: "string", format: "email" })),
          f("location", str("Free-text location or meeting link")),
          f("visibility", enm("Who can see the event details", ["default", "public", "private"])),
        ],
        ["start", "updated_at"],
      ),
      obj(
        "calendar",
        "calendars",
        ["owned", "shared", "subscribed"],
        [
          f("summary", str("Name of the calendar")),
          f("time_zone", str("IANA time zone, e.g. Europe/Paris")),
          f("color", enm("Display colour", ["blue", "green", "red", "purple", "grey"])),
        ],
        ["summary"],
      ),
      obj(
        "reminder",
        "reminders",
        ["pending", "sent", "dismissed"],
        [
          f("event_id", str("ID of the event the reminder belongs to")),
          f("minutes_before", int("How long before the start to remind", 0, 40320)),
          f("method", enm("How to remind", ["email", "popup", "sms"])),
        ],
        ["minutes_before"],
      ),
    ],
  },
  {
    key: "github",
    title: "GitHub",
    objects: [
      obj(
        "issue",
        "issues",
        ["open", "closed"],
        [
          f("repo", str("Repository as owner/name")),
          f("title", str("Issue title")),
          f("body", str("Issue body in Markdown")),
          f("labels", arr("Labels to apply", { type: "string" })),
          f("assignee", str("Login of the user to assign")),
        ],
        ["created", "updated", "comments"],
      ),
      obj(
        "pull_request",
        "pull_requests",
        ["open", "closed", "merged", "draft"],
        [
          f("repo", str("Repository as owner/name")),
          f("head", str("Branch that contains the changes")),
          f("base", str("Branch the changes are merged into")),
          f("title", str("Pull request title")),
          f("draft", bool("Open as a draft")),
        ],
        ["created", "updated", "popularity"],
      ),
      obj(
        "release",
        "releases",
        ["published", "draft", "prerelease"],
        [
          f("repo", str("Repository as owner/name")),
          f("tag_name", str("Git tag of the release, e.g. v1.4.0")),
          f("name", str("Release title")),
          f("notes", str("Release notes in Markdown")),
        ],
        ["created", "published"],
      ),
    ],
  },
  {
    key: "billing",
    title: "Stripe billing",
    objects: [
      obj(
        "invoice",
        "invoices",
        ["draft", "open", "paid", "void", "uncollectible"],
        [
          f("customer_id", str("ID of the customer to bill")),
          f("due_date", str("Date payment is due", { format: "date" })),
          f("currency", enm("ISO 4217 currency code", ["usd", "eur", "gbp"])),
          f("memo", str("Note printed on the invoice")),
        ],
        ["created", "due_date", "amount_due"],
      ),
      obj(
        "subscription",
        "subscriptions",
        ["active", "past_due", "canceled", "trialing"],
        [
          f("customer_id", str("ID of the subscribing customer")),
          f("price_id", str("ID of the recurring price")),
          f("quantity", int("Number of seats", 1, 10000)),
          f("trial_days", int("Length of the free trial in days", 0, 730)),
        ],
        ["created", "current_period_end"],
      ),
      obj(
        "refund",
        "refunds",
        ["pending", "succeeded", "failed"],
        [
          f("payment_id", str("ID of the payment to refund")),
          f("amount", int("Amount in the smallest currency unit; omit for a full refund", 1, 100000000)),
          f("reason", enm("Why the payment is refunded", ["duplicate", "fraudulent", "requested_by_customer"])),
        ],
        ["created", "amount"],
      ),
    ],
  },
  {
    key: "drive",
    title: "Google Drive",
    objects: [
      obj(
        "file",
        "files",
        ["active", "trashed"],
        [
          f("name", str("File name including extension")),
          f("parent_id", str("ID of the folder that holds the file")),
          f("mime_type", enm("Content type", ["text/plain", "application/pdf", "image/png", "text/csv"])),
          f("starred", bool("Star the file")),
        ],
        ["modified_time", "name", "quota_bytes_used"],
      ),
      obj(
        "folder",
        "folders",
        ["active", "trashed"],
        [
          f("name", str("Folder name")),
          f("parent_id", str("ID of the parent folder")),
          f("color", enm("Folder colour", ["default", "red", "green", "blue"])),
        ],
        ["modified_time", "name"],
      ),
      obj(
        "permission",
        "permissions",
        ["granted", "pending", "revoked"],
        [
          f("file_id", str("ID of the file or folder to share")),
          f("email", str("Email address of the grantee", { format: "email" })),
          f("role", enm("Access level", ["reader", "commenter", "writer", "owner"])),
        ],
        ["role"],
      ),
    ],
  },
  {
    key: "slack",
    title: "Slack",
    objects: [
      obj(
        "message",
        "messages",
        ["posted", "edited", "deleted"],
        [
          f("channel", str("Channel ID or #name")),
          f("text", str("Message text in Slack mrkdwn")),
          f("thread_ts", str("Timestamp of the parent message to reply in a thread")),
          f("unfurl_links", bool("Expand link previews")),
        ],
        ["timestamp"],
      ),
      obj(
        "channel",
        "channels",
        ["active", "archived"],
        [
          f("name", str("Channel name, lowercase, without #")),
          f("is_private", bool("Create a private channel")),
          f("topic", str("Channel topic")),
        ],
        ["name", "created", "member_count"],
      ),
      obj(
        "reminder",
        "reminders",
        ["pending", "complete"],
        [
          f("text", str("What to be reminded about")),
          f("time", str("When, as a date-time or a phrase like 'in 15 minutes'")),
          f("user", str("User ID to remind; defaults to the caller")),
        ],
        ["time"],
      ),
    ],
  },
  {
    key: "jira",
    title: "Jira",
    objects: [
      obj(
        "ticket",
        "tickets",
        ["to_do", "in_progress", "in_review", "done"],
        [
          f("project_key", str("Project key, e.g. OPS")),
          f("summary", str("One-line summary")),
          f("description", str("Details in Atlassian wiki markup")),
          f("priority", enm("Priority", ["lowest", "low", "medium", "high", "highest"])),
          f("issue_type", enm("Kind of work item", ["bug", "task", "story", "epic"])),
          f("story_points", int("Estimate in story points", 0, 100)),
        ],
        ["created", "updated", "priority"],
      ),
      obj(
        "sprint",
        "sprints",
        ["future", "active", "closed"],
        [
          f("board_id", int("ID of the board", 1, 1000000)),
          f("name", str("Sprint name")),
          f("start_date", str("Sprint start", { format: "date" })),
          f("end_date", str("Sprint end", { format: "date" })),
          f("goal", str("Sprint goal")),
        ],
        ["start_date"],
      ),
    ],
  },
  {
    key: "weather",
    title: "the weather service",
    objects: [
      obj(
        "forecast",
        "forecasts",
        ["current", "superseded"],
        [
          f("location", str("City name or 'lat,lon'")),
          f("days", int("Number of days ahead", 1, 14)),
          f("units", enm("Unit system", ["metric", "imperial"])),
          f("include_hourly", bool("Include hour-by-hour values")),
        ],
        ["time"],
      ),
      obj(
        "alert",
        "alerts",
        ["active", "expired"],
        [
          f("region", str("Region or country code")),
          f("severity", enm("Minimum severity", ["minor", "moderate", "severe", "extreme"])),
          f("language", str("Language of the alert text, ISO 639-1")),
        ],
        ["onset", "severity"],
      ),
    ],
  },
  {
    key: "maps",
    title: "the maps service",
    objects: [
      obj(
        "route",
        "routes",
        ["computed"],
        [
          f("origin", str("Start address or 'lat,lon'")),
          f("destination", str("End address or 'lat,lon'")),
          f("mode", enm("Travel mode", ["driving", "walking", "bicycling", "transit"])),
          f("avoid", arr("Features to avoid", { type: "string", enum: ["tolls", "highways", "ferries"] })),
          f("depart_at", str("Departure time", { format: "date-time" })),
        ],
        ["duration", "distance"],
      ),
      obj(
        "place",
        "places",
        ["open", "closed_temporarily", "closed_permanently"],
        [
          f("query", str("What to look for, e.g. 'coffee near the Louvre'")),
          f("radius_m", int("Search radius in metres", 1, 50000)),
          f("category", enm("Kind of place", ["restaurant", "cafe", "hotel", "museum", "pharmacy"])),
          f("open_now", bool("Only places open now")),
        ],
        ["distance", "rating"],
      ),
    ],
  },
  {
    key: "shop",
    title: "the Shopify store",
    objects: [
      obj(
        "order",
        "orders",
        ["pending", "paid", "fulfilled", "refunded", "cancelled"],
        [
          f("customer_email", str("Email of the buyer", { format: "email" })),
          f("line_items", arr("Product variant IDs to order", { type: "string" })),
          f("shipping_method", enm("Shipping speed", ["standard", "express", "overnight"])),
          f("note", str("Note attached to the order")),
        ],
        ["created_at", "total_price"],
      ),
      obj(
        "product",
        "products",
        ["active", "draft", "archived"],
        [
          f("title", str("Product title")),
          f("price", { type: "number", minimum: 0, description: "Price in the store currency" }),
          f("sku", str("Stock keeping unit")),
          f("inventory", int("Units in stock", 0, 1000000)),
          f("tags", arr("Tags for search and collections", { type: "string" })),
        ],
        ["title", "created_at", "price"],
      ),
      obj(
        "shipment",
        "shipments",
        ["label_created", "in_transit", "delivered", "exception"],
        [
          f("order_id", str("ID of the order being shipped")),
          f("carrier", enm("Carrier", ["ups", "fedex", "dhl", "usps"])),
          f("tracking_number", str("Carrier tracking number")),
        ],
        ["shipped_at"],
      ),
    ],
  },
  {
    key: "analytics",
    title: "the analytics warehouse",
    objects: [
      obj(
        "report",
        "reports",
        ["ready", "running", "failed"],
        [
          f("metric", enm("Metric to aggregate", ["sessions", "revenue", "signups", "churn_rate"])),
          f("dimension", enm("Breakdown", ["day", "week", "country", "channel", "plan"])),
          f("date_from", str("First day included", { format: "date" })),
          f("date_to", str("Last day included", { format: "date" })),
        ],
        ["created_at", "name"],
      ),
      obj(
        "dashboard",
        "dashboards",
        ["published", "draft"],
        [
          f("title", str("Dashboard title")),
          f("refresh_minutes", int("Auto-refresh interval", 5, 1440)),
          f("shared_with", arr("Emails of viewers", { type: "string", format: "email" })),
        ],
        ["title", "updated_at"],
      ),
    ],
  },
  {
    key: "hr",
    title: "the HR system",
    objects: [
      obj(
        "employee",
        "employees",
        ["active", "on_leave", "terminated"],
        [
          f("full_name", str("Employee's full legal name")),
          f("department", enm("Department", ["engineering", "sales", "marketing", "finance", "support"])),
          f("manager_id", str("Employee ID of the manager")),
          f("start_date", str("First working day", { format: "date" })),
        ],
        ["full_name", "start_date"],
      ),
      obj(
        "time_off_request",
        "time_off_requests",
        ["requested", "approved", "rejected"],
        [
          f("employee_id", str("ID of the employee taking leave")),
          f("kind", enm("Kind of leave", ["vacation", "sick", "parental", "unpaid"])),
          f("from", str("First day off", { format: "date" })),
          f("to", str("Last day off", { format: "date" })),
        ],
        ["from", "created_at"],
      ),
    ],
  },
];

const VERBS = ["get", "list", "create", "update", "delete", "search", "archive", "export"] as const;
type Verb = (typeof VERBS)[number];

const an = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const human = (word: string) => word.replaceAll("_", " ");
const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function describe(rnd: () => number, verb: Verb, s: Service, o: ObjectSpec): string {
  const one = human(o.singular);
  const many = human(o.plural);
  const first: Record<Verb, string[]> = {
    get: [`Retrieve ${an(one)} from ${s.title} by its ID.`, `Fetch the full details of one ${one} in ${s.title}.`],
    list: [`List ${many} in ${s.title}, newest first.`, `Page through the ${many} stored in ${s.title}.`],
    create: [`Create a new ${one} in ${s.title}.`, `Add ${an(one)} to ${s.title} and return it with its new ID.`],
    update: [
      `Update fields of an existing ${one} in ${s.title}.`,
      `Change ${an(one)} in ${s.title}; unset fields are kept.`,
    ],
    delete: [
      `Permanently delete ${an(one)} from ${s.title}.`,
      `Remove ${an(one)} from ${s.title}. This cannot be undone.`,
    ],
    search: [`Search ${many} in ${s.title} by free text and filters.`, `Find ${many} in ${s.title} matching a query.`],
    archive: [`Archive ${an(one)} in ${s.title} so it no longer shows up in lists.`],
    export: [`Export ${many} from ${s.title} as a downloadable file.`],
  };
  const second = [
    `Use this when the user refers to a specific ${one}.`,
    `Results respect the caller's permissions in ${s.title}.`,
    `Returns the ${one} as JSON, including timestamps and status (${o.statuses.join(", ")}).`,
    "Rate limited to 10 requests per second.",
    `Prefer the search tool when the ${one} ID is unknown.`,
    "",
  ];
  const extra = pick(rnd, second);
  // Some tools carry a second paragraph (only the first line goes into the deferred listing).
  const notes =
    rnd() < 0.3
      ? `\n\nNote: requires the ${s.key}:${verb === "get" || verb === "list" || verb === "search" || verb === "export" ? "read" : "write"} scope.`
      : "";
  return `${pick(rnd, first[verb])}${extra ? ` ${extra}` : ""}${notes}`;
}

function idField(o: ObjectSpec): Field {
  return f(`${o.singular}_id`, str(`Unique ID of the ${human(o.singular)}`));
}

/** Parameters for one verb, before trimming to 2–6: [required…], [optional…]. */
function parameters(rnd: () => number, verb: Verb, o: ObjectSpec): { required: Field[]; optional: Field[] } {
  const limit = f("limit", int("Maximum number of results to return", 1, 100));
  const cursor = f("cursor", str("Opaque cursor from a previous page"));
  const status = f("status", enm(`Only ${human(o.plural)} with this status`, o.statuses));
  const sortBy = f("sort_by", enm("Field to sort by", o.sortable));
  const order = f("order", enm("Sort direction", ["asc", "desc"]));
  const fields = o.fields;
  switch (verb) {
    case "get":
      return {
        required: [idField(o)],
        optional: [
          f("fields", arr("Fields to include; all when omitted", { type: "string", enum: fields.map((x) => x.name) })),
          f("include_deleted", bool("Also return a deleted record")),
        ],
      };
    case "list":
      return {
        required: [],
        optional: [
          limit,
          cursor,
          status,
          sortBy,
          order,
          f("updated_since", str("Only records changed after", { format: "date-time" })),
        ],
      };
    case "create":
      return { required: fields.slice(0, 2), optional: [...fields.slice(2), f("notify", bool("Send notifications"))] };
    case "update":
      return { required: [idField(o)], optional: shuffle(rnd, fields) };
    case "delete":
      return {
        required: [idField(o)],
        optional: [
          f("force", bool("Delete even when other records reference it")),
          f("reason", enm("Why it is deleted", ["duplicate", "obsolete", "requested", "other"])),
        ],
      };
    case "search":
      return {
        required: [f("query", str(`Free-text query matched against ${human(o.singular)} fields`))],
        optional: [status, limit, sortBy, f("owner_id", str("Only records owned by this user"))],
      };
    case "archive":
      return {
        required: [idField(o)],
        optional: [f("reason", str("Why it is archived")), f("notify_owner", bool("Tell the owner"))],
      };
    case "export":
      return {
        required: [f("format", enm("File format", ["csv", "json", "xlsx", "pdf"]))],
        optional: [
          status,
          f("date_from", str("First day included", { format: "date" })),
          f("date_to", str("Last day included", { format: "date" })),
          f("columns", arr("Columns to export", { type: "string", enum: fields.map((x) => x.name) })),
        ],
      };
  }
}

/**
 * `n` realistic tools (n ≤ ~370): `<service>_<verb>_<object>` names over twelve SaaS-like services, one- or
 * two-sentence descriptions (some with a second paragraph), 2–6 typed parameters with descriptions, enums,
 * formats and bounds. Deterministic for a given seed.
 */
export function realisticTools(n: number, seed = 7): GenTool[] {
  const rnd = mulberry32(seed);
  const combos: Array<[Service, ObjectSpec, Verb]> = [];
  for (const s of SERVICES) for (const o of s.objects) for (const v of VERBS) combos.push([s, o, v]);
  const chosen = shuffle(rnd, combos).slice(0, n);
  if (chosen.length < n) throw new Error(`realisticTools: at most ${combos.length} tools`);
  return chosen.map(([s, o, verb]) => {
    const noun = verb === "list" || verb === "search" || verb === "export" ? o.plural : o.singular;
    const { required, optional } = parameters(rnd, verb, o);
    const count = Math.max(2, Math.min(6, 2 + Math.floor(rnd() * 5)));
    const params = [...required, ...optional].slice(0, Math.max(count, required.length));
    const properties: JsonObject = {};
    for (const p of params) properties[p.name] = p.schema;
    const schema: JsonObject = { type: "object", properties, additionalProperties: false };
    if (required.length > 0) schema.required = required.map((p) => p.name);
    return { name: `${s.key}_${verb}_${noun}`, description: describe(rnd, verb, s, o), input_schema: schema };
  });
}

/**
 * `n` small tools for a large catalog (search latency): the realistic names spread over numbered workspaces
 * (`crm7_update_deal`), one-sentence descriptions with a distinguishing phrase, and 1–2 parameters without
 * descriptions — a few hundred bytes each, so thousands fit in one agent body.
 */
export function compactTools(n: number, seed = 11): GenTool[] {
  const rnd = mulberry32(seed);
  const regions = ["eu", "us", "apac", "latam", "emea", "uk", "ca", "jp", "in", "au"];
  const teams = ["sales", "support", "finance", "growth", "platform", "legal", "ops", "design", "data", "security"];
  const base: Array<[Service, ObjectSpec, Verb]> = [];
  for (const s of SERVICES) for (const o of s.objects) for (const v of VERBS) base.push([s, o, v]);
  const out: GenTool[] = [];
  for (let ws = 1; out.length < n; ws++) {
    for (const [s, o, verb] of shuffle(rnd, base)) {
      if (out.length >= n) break;
      const noun = verb === "list" || verb === "search" || verb === "export" ? o.plural : o.singular;
      const region = pick(rnd, regions);
      const team = pick(rnd, teams);
      const field = pick(rnd, o.fields);
      const properties: JsonObject =
        verb === "list" || verb === "search" || verb === "export"
          ? { query: { type: "string" }, limit: { type: "integer" } }
          : { id: { type: "string" }, [field.name]: { type: field.schema.type === "array" ? "array" : "string" } };
      out.push({
        name: `${s.key}${ws}_${verb}_${noun}`,
        description: `${cap(human(verb))} ${human(noun)} in ${s.title} for the ${team} team (${region} workspace ${ws}).`,
        input_schema: { type: "object", properties },
      });
    }
  }
  return out;
}

/** Arguments that satisfy a generated schema: required properties only, first enum value, bounds respected. */
export function exampleArgs(schema: JsonObject): JsonObject {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const out: JsonObject = {};
  for (const name of required) {
    const p = properties[name];
    if (p) out[name] = exampleValue(p);
  }
  return out;
}

function exampleValue(p: JsonObject): unknown {
  if (Array.isArray(p.enum)) return p.enum[0];
  switch (p.type) {
    case "integer":
    case "number":
      return typeof p.minimum === "number" ? p.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    default:
      if (p.format === "date") return "2025-06-02";
      if (p.format === "date-time") return "2025-06-02T09:30:00Z";
      if (p.format === "email") return "ada@example.com";
      return "bench";
  }
}

/** o200k tokens (gpt-tokenizer's default encoding). */
export function tokens(text: string): number {
  return text === "" ? 0 : encode(text).length;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** tools[] of a recorded wire body (empty when absent). */
export function wireTools(body: unknown): JsonObject[] {
  return isObject(body) && Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
}

/** Name of a wire tool (Anthropic `name`, Chat Completions `function.name`). */
export function wireToolName(tool: JsonObject): string {
  if (typeof tool.name === "string") return tool.name;
  return isObject(tool.function) && typeof tool.function.name === "string" ? tool.function.name : "?";
}

/** The system prompt as sent: Anthropic `system` (string or blocks), Chat Completions the leading system message. */
export function wireSystem(body: unknown): unknown {
  if (!isObject(body)) return null;
  if (body.system !== undefined) return body.system;
  const first = Array.isArray(body.messages) ? body.messages[0] : undefined;
  return isObject(first) && first.role === "system" && "content" in first ? first : null;
}

/** Plain text of the system prompt (for token counting). */
export function systemText(body: unknown): string {
  const system = wireSystem(body);
  if (typeof system === "string") return system;
  if (Array.isArray(system))
    return system.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  if (isObject(system) && typeof system.content === "string") return system.content;
  return "";
}

/** The `<deferred_tools>…</deferred_tools>` section of the system prompt ("" when there is none). */
export function deferredListing(system: string): string {
  return /<deferred_tools>[\s\S]*?<\/deferred_tools>/.exec(system)?.[0] ?? "";
}

/** Messages of a wire body, each serialized (for prefix comparisons). */
export function wireMessages(body: unknown): string[] {
  return isObject(body) && Array.isArray(body.messages) ? body.messages.map((m) => JSON.stringify(m)) : [];
}

/**
 * Over consecutive steps of one session: how many steps sent the same tools[] + system bytes as the step before,
 * and how many kept the previous step's messages as an unchanged prefix.
 */
export function prefixStability(bodies: unknown[]): {
  steps: number;
  compared: number;
  same_tools_and_system: number;
  same_tools: number;
  same_system: number;
  messages_append_only: number;
  changed_at: number[];
} {
  let same = 0;
  let sameTools = 0;
  let sameSystem = 0;
  let appendOnly = 0;
  const changedAt: number[] = [];
  for (let i = 1; i < bodies.length; i++) {
    const tools = JSON.stringify(wireTools(bodies[i])) === JSON.stringify(wireTools(bodies[i - 1]));
    const system = JSON.stringify(wireSystem(bodies[i])) === JSON.stringify(wireSystem(bodies[i - 1]));
    if (tools) sameTools++;
    if (system) sameSystem++;
    if (tools && system) same++;
    else changedAt.push(i + 1);
    const prev = wireMessages(bodies[i - 1]);
    const cur = wireMessages(bodies[i]);
    if (prev.length <= cur.length && prev.every((m, k) => m === cur[k])) appendOnly++;
  }
  return {
    steps: bodies.length,
    compared: Math.max(0, bodies.length - 1),
    same_tools_and_system: same,
    same_tools: sameTools,
    same_system: sameSystem,
    messages_append_only: appendOnly,
    changed_at: changedAt,
  };
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

const QUERY_STOP = new Set(["in", "the", "for", "a", "an", "to", "of", "workspace"]);

/**
 * Keyword queries aimed at random tools of a catalog: 3–7 words of the target's description (stopwords and
 * numbers dropped), shuffled, sometimes with a filler phrase — what a model writes into tool_search.
 */
export function keywordQueries(tools: readonly GenTool[], count: number, seed = 5): string[] {
  const rnd = mulberry32(seed);
  const fillers = ["", "", "how do I", "tool to", "I need to"];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = pick(rnd, tools);
    const words = target.description
      .toLowerCase()
      .replace(/[^a-z0-9 ]+/g, " ")
      .split(/\s+/)
      .filter((w) => w !== "" && !QUERY_STOP.has(w) && !/^\d+$/.test(w));
    const k = Math.min(words.length, 3 + Math.floor(rnd() * 5));
    const filler = pick(rnd, fillers);
    out.push(`${filler ? `${filler} ` : ""}${shuffle(rnd, words).slice(0, k).join(" ")}`);
  }
  return out;
}

/** `count` distinct tool names per group, `groups` groups, never repeating a name across groups. */
export function nameGroups(tools: readonly GenTool[], groups: number, count: number, seed = 9): string[][] {
  const rnd = mulberry32(seed);
  const names = shuffle(
    rnd,
    tools.map((t) => t.name),
  );
  if (names.length < groups * count) throw new Error("nameGroups: catalog too small");
  return Array.from({ length: groups }, (_, g) => names.slice(g * count, (g + 1) * count));
}
