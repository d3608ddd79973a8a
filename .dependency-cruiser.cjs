/**
 * The layering of src/, and what the web client and packages/ may take of it, checked by `npm run lint`
 * (`depcruise src web/src packages`); ARCHITECTURE.md "Layers" says why.
 *
 *   model  ←  base  ←  domain  ←  session  ←  worker  ←  index.ts
 *
 * A module may import its own layer and the layers to its left, never one to its right; no import cycles;
 * every file of src/ belongs to exactly one layer.
 */

const LAYERS = {
  /** The provider-neutral conversation model: messages, stream events, turn status, ErrorInfo/Result. */
  model: ["^src/model/"],
  /** Bindings, SQLite helpers and budgets, session events and tracing, encodings, JSON Schema validation. */
  base: [
    "^src/env\\.ts$",
    "^src/env-values\\.ts$",
    "^src/storage/",
    "^src/observability/",
    "^src/crypto/",
    "^src/json-schema/",
  ],
  /** What a session uses and knows no session: adapters, tools, MCP, agent config, retention settings, webhook signatures, the D1 access modules. */
  domain: [
    "^src/providers/",
    "^src/tools/",
    "^src/mcp/",
    "^src/agents/types\\.ts$",
    "^src/retention/config\\.ts$",
    "^src/d1/",
    "^src/runs/signature\\.ts$",
  ],
  /** The Session Durable Object and everything that runs inside it. */
  session: ["^src/session/"],
  /** The worker: the HTTP API and what only it calls (rate limits, run admission, agent bodies, the retention cron). */
  worker: [
    "^src/http/",
    "^src/ratelimit/",
    "^src/runs/admission\\.ts$",
    "^src/agents/(normalize|schema)\\.ts$",
    "^src/retention/cron\\.ts$",
  ],
  /** The worker entry: exports the app, the cron and the object classes. */
  entry: ["^src/index\\.ts$"],
};

const ORDER = ["model", "base", "domain", "session", "worker", "entry"];
const above = (layer) => ORDER.slice(ORDER.indexOf(layer) + 1).flatMap((l) => LAYERS[l]);
const ALL = ORDER.flatMap((l) => LAYERS[l]);

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No import cycle, type-only imports included.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "model-imports-nothing",
      comment: "src/model imports nothing outside src/model: no module of ours, no package.",
      severity: "error",
      from: { path: LAYERS.model },
      to: { pathNot: LAYERS.model },
    },
    {
      name: "web-takes-only-model-leaves",
      comment: "The web client takes of src/ only model files with no imports of their own but a type.",
      severity: "error",
      from: { path: "^web/src/" },
      to: { path: "^src/", pathNot: "^src/model/(json|declined|message)\\.ts$" },
    },
    {
      name: "packages-stand-alone",
      comment: "A package of packages/ imports nothing of src/ or web/.",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^(src|web)/" },
    },
    ...ORDER.slice(0, -1).map((layer) => ({
      name: `${layer}-does-not-import-up`,
      comment: `A ${layer} module imports only its own layer and those below it (${ORDER.join(" ← ")}).`,
      severity: "error",
      from: { path: LAYERS[layer] },
      to: { path: above(layer) },
    })),
    {
      name: "worker-helpers-use-http-basics-only",
      comment: "Worker modules outside http/ use only its error type, its types and body validation.",
      severity: "error",
      from: { path: LAYERS.worker, pathNot: "^src/http/" },
      to: { path: "^src/http/", pathNot: "^src/http/(errors|types|validate)\\.ts$" },
    },
    {
      name: "session-uses-provider-entry",
      comment:
        "Session modules take of src/providers/ only its entry (index.ts) and its types (types.ts): what the session needs of one provider is a member of its adapter, not that provider's files.",
      severity: "error",
      from: { path: LAYERS.session },
      to: { path: "^src/providers/", pathNot: "^src/providers/(index|types)\\.ts$" },
    },
    {
      name: "every-module-has-a-layer",
      comment: "A file of src/ that no layer names: add it to a layer in .dependency-cruiser.cjs.",
      severity: "error",
      from: { path: "^src/", pathNot: ALL },
      to: {},
    },
    {
      name: "every-import-has-a-layer",
      comment: "An import of a file of src/ that no layer names: add it to a layer in .dependency-cruiser.cjs.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/", pathNot: ALL },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".js", ".json"],
      // The workspace packages resolve through their package.json `exports`, so a rule can name them.
      exportsFields: ["exports"],
      conditionNames: ["import", "default"],
    },
  },
};
