// Generated from /openapi.json by openapi-typescript (`npm run openapi:types`). Do not edit.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List keys (admin) */
        get: operations["listKeys"];
        put?: never;
        /** Create a tenant API key (admin) */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key (admin) */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents (admin), a page by name; a page ends before 8 MB of configs, so it may hold fewer than limit */
        get: operations["listAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an agent (admin) */
        get: operations["getAgent"];
        /** Create or replace an agent (admin); takes effect at the next turn of each session */
        put: operations["putAgent"];
        post?: never;
        /** Delete an agent (admin) */
        delete: operations["deleteAgent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{agent}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a webhook run: a tenant key, or a Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) */
        post: operations["startRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run status, result and callback attempts */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{id}/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or decline a run's tool calls waiting for a person: the admin key, an API key of the run's tenant, or (a run started by a signed webhook) a Standard Webhooks signature by one of the agent's secrets */
        post: operations["answerRunApprovals"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the tenant's sessions */
        get: operations["listSessions"];
        put?: never;
        /** Create a session */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Session state */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /** Delete a session and everything in it */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stored history, oldest first; a page ends before 8 MB of stored messages, so it may hold fewer than limit: follow next until it is null */
        get: operations["listMessages"];
        put?: never;
        /** Start a turn with a user message */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/tool-results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Answer client tool calls; the turn resumes once all are in (a turn that failed with the calls open does not: the results are kept for POST /retry) */
        post: operations["submitToolResults"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/tool-approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or decline tool calls waiting for a person (needs the `approve` action); the turn resumes once nothing else is awaited */
        post: operations["answerToolApprovals"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The AI SDK useChat endpoint (DefaultChatTransport): the newest message starts a turn (with the body's `json_schema` and `max_steps`, as on /messages), answers client tools or answers approvals (`approval-responded` parts); `trigger: regenerate-message` retries the newest turn */
        post: operations["chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Resume a turn's stream: the frames after Last-Event-ID, else the running turn from its start
         * @description With `Last-Event-ID` (or `after`), the frames after it of the turn they belong to, then that turn live while it runs. When that turn is older than the newest (the client dropped mid turn and a newer turn started before it came back), the stream is the rest of that turn and ends with `[DONE]` at its last frame's id; a reconnect with that id gets the next turn from its start. When the frames after the id were swept (the log keeps the newest three turns), the newest turn's frames after it. Without either, the running turn from its start.
         */
        get: operations["openStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/chat/{chatId}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The AI SDK's default reconnect URL (useChat `resume: true`): the same as GET /v1/sessions/{id}/stream */
        get: operations["resumeChatStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-run the last failed, interrupted, cancelled or paused turn */
        post: operations["retryTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel the running turn */
        post: operations["cancelTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/compact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Summarise the history before a turn boundary now (README: Long sessions) */
        post: operations["compactSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/clear": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Empty the history and the loaded tools */
        post: operations["clearSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Typed session events, oldest first; a page ends before 8 MB of stored events, so it may hold fewer than limit: follow next until it is null */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint a short-lived session token (tenant API key only) */
        post: operations["mintToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant}/cors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A tenant's allowed browser origins (admin) */
        get: operations["getCors"];
        /** Replace a tenant's allowed browser origins (admin) */
        put: operations["putCors"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List any tenant's sessions, `webhook:<agent>` too (admin) */
        get: operations["listTenantSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant}/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete any tenant's session, as its own DELETE does (admin) */
        delete: operations["deleteTenantSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenants/{tenant}/sessions/{id}/clear": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Clear any tenant's session, as its own clear does (admin) */
        post: operations["clearTenantSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        CreateKeyBody: {
            tenant: string;
            name?: string;
            rate_limit_per_min?: number | null;
        };
        AgentBody: {
            model: {
                /** @enum {unknown} */
                provider: "anthropic" | "openai" | "openai-responses";
                name: string;
                max_tokens?: number;
                /** @enum {unknown} */
                max_tokens_field?: "max_tokens" | "max_completion_tokens";
                context_window?: number;
                /** @enum {unknown} */
                effort?: "low" | "medium" | "high" | "xhigh" | "max";
                capabilities?: {
                    message_level_tools?: boolean;
                    native_tool_search?: boolean;
                    prompt_cache?: boolean;
                    thinking?: boolean | ("enabled" | "adaptive");
                    native_compaction?: boolean;
                };
            };
            system?: string;
            max_steps?: number;
            tools?: {
                name: string;
                description?: string;
                input_schema: Record<string, unknown>;
                discovery_schema?: Record<string, unknown>;
                defer?: boolean;
                always_load?: boolean;
                search_hint?: string;
                requires_approval?: boolean;
                execution: {
                    /** @constant */
                    type: "http";
                    url: string;
                    timeout_ms?: number;
                } | {
                    /** @constant */
                    type: "client";
                };
            }[];
            mcp_servers?: {
                name: string;
                url: string;
                headers?: {
                    [key: string]: string;
                };
                defer?: boolean;
                require_approval?: ("always" | "never") | {
                    tools: string[];
                };
            }[];
            disclosure?: {
                tool_search?: boolean;
                tool_info?: boolean;
                select_tools?: "auto" | boolean;
            };
            compaction?: {
                enabled?: boolean;
                threshold?: number;
                keep_recent_turns?: number;
                tool_budget_tokens?: number;
            };
            webhook_secrets?: string[];
            webhook_tenant?: string;
            approval_ttl_s?: number;
        };
        CreateSessionBody: {
            agent: string;
            id?: string;
            metadata?: Record<string, unknown>;
            /** @enum {unknown} */
            location_hint?: "wnam" | "enam" | "sam" | "weur" | "eeur" | "apac" | "oc" | "afr" | "me";
        };
        CreateTokenBody: {
            actions: ("send" | "stream" | "read" | "approve")[];
            ttl_s?: number;
        };
        CorsBody: {
            allowed_origins: string[];
        };
        MessageBody: {
            content: string | {
                /** @constant */
                type: "text";
                text: string;
            }[];
            tool_results?: {
                tool_use_id: string;
                content: string | {
                    /** @constant */
                    type: "text";
                    text: string;
                }[];
                is_error?: boolean;
            }[];
            max_steps?: number;
            json_schema?: Record<string, unknown> | boolean;
        };
        ToolResultsBody: {
            results: {
                tool_use_id: string;
                content: string | {
                    /** @constant */
                    type: "text";
                    text: string;
                }[];
                is_error?: boolean;
            }[];
        };
        ToolApprovalsBody: {
            approvals: {
                approval_id: string;
                approved: boolean;
                reason?: string;
                signature?: string;
            }[];
        };
        ChatBody: {
            max_steps?: number;
            json_schema?: Record<string, unknown> | boolean;
            id?: string;
            trigger?: string;
            messageId?: string | null;
            messages: {
                id?: string;
                /** @enum {unknown} */
                role: "user" | "assistant" | "system";
                parts: Record<string, unknown>[];
            }[];
        };
        RunBody: {
            input: string | {
                /** @constant */
                type: "text";
                text: string;
            }[];
            session_id?: string;
            json_schema?: Record<string, unknown> | boolean;
            callback_url?: string;
        };
        Error: {
            error: {
                code: string;
                message: string;
            };
        };
        /** @description A canonical history part: text, thinking (with its provider signature), tool_use, tool_result, tool_declarations, a service notice, or a provider's server-side compaction (summary `content`, null when it failed, plus opaque `encrypted` provider state). */
        Part: {
            /** @enum {unknown} */
            type: "text" | "thinking" | "tool_use" | "tool_result" | "tool_declarations" | "notice" | "compaction";
            text?: string;
            thinking?: string;
            /** @description thinking: the provider's signature, sent back to it byte for byte. */
            signature?: string;
            /** @description thinking: a redacted thinking block's opaque data (Anthropic); `thinking` empty. */
            redacted?: string;
            id?: string;
            name?: string;
            input?: Record<string, unknown>;
            tool_use_id?: string;
            content?: string | Record<string, unknown>[] | null;
            is_error?: boolean;
            /** @description tool_declarations: the tool declarations loaded since the last user message; notice: the tool set (a `tools_baseline`, or a `tools_changed` too large to list whole), by name. */
            tools?: (string | {
                name: string;
                description: string;
                input_schema: Record<string, unknown>;
                defer_loading?: boolean;
            })[];
            /**
             * @description notice: a change of the tool set (`added`, `removed`), or the set the session started from.
             * @enum {unknown}
             */
            kind?: "tools_changed" | "tools_baseline";
            /** @description notice (`tools_changed`): the tools made available. */
            added?: string[];
            /** @description notice (`tools_changed`): the tools no longer available. */
            removed?: string[];
            /** @description notice (`tools_baseline`): the deferred tools' listing of the system prompt. */
            listing?: string;
            provider?: string;
            encrypted?: string;
        };
        Message: {
            seq: number;
            /** @enum {unknown} */
            role: "user" | "assistant";
            /** @enum {unknown} */
            origin: "client" | "model" | "tool" | "synthetic" | "system";
            turn_id?: string | null;
            parts: {
                /** @enum {unknown} */
                type: "text" | "thinking" | "tool_use" | "tool_result" | "tool_declarations" | "notice" | "compaction";
                text?: string;
                thinking?: string;
                /** @description thinking: the provider's signature, sent back to it byte for byte. */
                signature?: string;
                /** @description thinking: a redacted thinking block's opaque data (Anthropic); `thinking` empty. */
                redacted?: string;
                id?: string;
                name?: string;
                input?: Record<string, unknown>;
                tool_use_id?: string;
                content?: string | Record<string, unknown>[] | null;
                is_error?: boolean;
                /** @description tool_declarations: the tool declarations loaded since the last user message; notice: the tool set (a `tools_baseline`, or a `tools_changed` too large to list whole), by name. */
                tools?: (string | {
                    name: string;
                    description: string;
                    input_schema: Record<string, unknown>;
                    defer_loading?: boolean;
                })[];
                /**
                 * @description notice: a change of the tool set (`added`, `removed`), or the set the session started from.
                 * @enum {unknown}
                 */
                kind?: "tools_changed" | "tools_baseline";
                /** @description notice (`tools_changed`): the tools made available. */
                added?: string[];
                /** @description notice (`tools_changed`): the tools no longer available. */
                removed?: string[];
                /** @description notice (`tools_baseline`): the deferred tools' listing of the system prompt. */
                listing?: string;
                provider?: string;
                encrypted?: string;
            }[];
            created_at: string;
        };
        TurnResult: {
            turn_id: string;
            /** @enum {unknown} */
            status: "running" | "completed" | "awaiting_tool_results" | "awaiting_approval" | "failed" | "cancelled" | "interrupted";
            finish_reason?: string | null;
            messages: {
                seq: number;
                /** @enum {unknown} */
                role: "user" | "assistant";
                /** @enum {unknown} */
                origin: "client" | "model" | "tool" | "synthetic" | "system";
                turn_id?: string | null;
                parts: {
                    /** @enum {unknown} */
                    type: "text" | "thinking" | "tool_use" | "tool_result" | "tool_declarations" | "notice" | "compaction";
                    text?: string;
                    thinking?: string;
                    /** @description thinking: the provider's signature, sent back to it byte for byte. */
                    signature?: string;
                    /** @description thinking: a redacted thinking block's opaque data (Anthropic); `thinking` empty. */
                    redacted?: string;
                    id?: string;
                    name?: string;
                    input?: Record<string, unknown>;
                    tool_use_id?: string;
                    content?: string | Record<string, unknown>[] | null;
                    is_error?: boolean;
                    /** @description tool_declarations: the tool declarations loaded since the last user message; notice: the tool set (a `tools_baseline`, or a `tools_changed` too large to list whole), by name. */
                    tools?: (string | {
                        name: string;
                        description: string;
                        input_schema: Record<string, unknown>;
                        defer_loading?: boolean;
                    })[];
                    /**
                     * @description notice: a change of the tool set (`added`, `removed`), or the set the session started from.
                     * @enum {unknown}
                     */
                    kind?: "tools_changed" | "tools_baseline";
                    /** @description notice (`tools_changed`): the tools made available. */
                    added?: string[];
                    /** @description notice (`tools_changed`): the tools no longer available. */
                    removed?: string[];
                    /** @description notice (`tools_baseline`): the deferred tools' listing of the system prompt. */
                    listing?: string;
                    provider?: string;
                    encrypted?: string;
                }[];
                created_at: string;
            }[];
            error?: {
                code: string;
                message: string;
                retryable?: boolean;
            };
            usage?: {
                [key: string]: number;
            };
            structured_result?: unknown;
            pending_tool_calls?: {
                id: string;
                name: string;
            }[];
            pending_approvals?: {
                approval_id: string;
                tool_call_id: string;
                name: string;
                input: Record<string, unknown>;
                /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
                resolved_input?: Record<string, unknown>;
                reason: string;
                signature: string;
                requested_at?: string;
                expires_at?: string | null;
            }[];
        };
        OpenApproval: {
            approval_id: string;
            tool_call_id: string;
            name: string;
            input: Record<string, unknown>;
            /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
            resolved_input?: Record<string, unknown>;
            reason: string;
            signature: string;
            requested_at?: string;
            expires_at?: string | null;
        };
        /** @description The paused step of the newest turn: every approval of the pause, answered or not, and the step's calls with their results so far (GET /messages shows them once the step closes). */
        PauseView: {
            turn_id: string;
            approvals: {
                approval_id: string;
                tool_call_id: string;
                name: string;
                input: Record<string, unknown>;
                /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
                resolved_input?: Record<string, unknown>;
                reason: string;
                signature: string;
                requested_at?: string;
                expires_at?: string | null;
                /** @enum {unknown} */
                status: "pending" | "approved" | "declined";
                /** @description Why it was declined, as given (or by its TTL). */
                decided_reason: string | null;
            }[];
            calls: {
                id: string;
                name: string;
                execution: string;
                /**
                 * @description `pending`: no result yet (waiting for a person, a client, or to run once approved).
                 * @enum {unknown}
                 */
                state: "pending" | "resolved" | "synthesized" | "skipped";
                /** @description Once it has one. */
                result?: string | Record<string, unknown>[];
                is_error?: boolean;
            }[];
        };
        Key: {
            id: string;
            key: string;
            tenant: string;
            name?: string | null;
            rate_limit_per_min?: number | null;
        };
        KeyList: {
            keys: {
                id: string;
                tenant: string;
                name?: string | null;
                created_at: string;
                revoked_at?: string | null;
                rate_limit_per_min?: number | null;
            }[];
        };
        /** @description The stored agent, as normalised (defaults filled in); webhook secrets and MCP header values are write-only (only the secrets' count and the headers' names are shown). */
        Agent: {
            name: string;
            model: {
                /** @enum {unknown} */
                provider: "anthropic" | "openai" | "openai-responses";
                name: string;
                max_tokens?: number;
                /** @enum {unknown} */
                max_tokens_field?: "max_tokens" | "max_completion_tokens";
                context_window?: number;
                /** @enum {unknown} */
                effort?: "low" | "medium" | "high" | "xhigh" | "max";
                capabilities?: {
                    message_level_tools?: boolean;
                    native_tool_search?: boolean;
                    prompt_cache?: boolean;
                    thinking?: boolean | ("enabled" | "adaptive");
                    native_compaction?: boolean;
                };
            };
            system?: string;
            max_steps?: number;
            tools?: {
                name: string;
                description?: string;
                input_schema: Record<string, unknown>;
                discovery_schema?: Record<string, unknown>;
                defer?: boolean;
                always_load?: boolean;
                search_hint?: string;
                requires_approval?: boolean;
                execution: {
                    /** @constant */
                    type: "http";
                    url: string;
                    timeout_ms?: number;
                } | {
                    /** @constant */
                    type: "client";
                };
            }[];
            mcp_servers?: {
                name: string;
                url: string;
                defer?: boolean;
                require_approval?: ("always" | "never") | {
                    tools: string[];
                };
                header_names: string[];
            }[];
            disclosure?: {
                tool_search?: boolean;
                tool_info?: boolean;
                select_tools?: "auto" | boolean;
            };
            compaction?: {
                enabled?: boolean;
                threshold?: number;
                keep_recent_turns?: number;
                tool_budget_tokens?: number;
            };
            webhook_tenant?: string;
            approval_ttl_s?: number;
            webhook_secrets_count?: number;
        };
        AgentList: {
            agents: {
                name: string;
                model: {
                    /** @enum {unknown} */
                    provider: "anthropic" | "openai" | "openai-responses";
                    name: string;
                    max_tokens?: number;
                    /** @enum {unknown} */
                    max_tokens_field?: "max_tokens" | "max_completion_tokens";
                    context_window?: number;
                    /** @enum {unknown} */
                    effort?: "low" | "medium" | "high" | "xhigh" | "max";
                    capabilities?: {
                        message_level_tools?: boolean;
                        native_tool_search?: boolean;
                        prompt_cache?: boolean;
                        thinking?: boolean | ("enabled" | "adaptive");
                        native_compaction?: boolean;
                    };
                };
                system?: string;
                max_steps?: number;
                tools?: {
                    name: string;
                    description?: string;
                    input_schema: Record<string, unknown>;
                    discovery_schema?: Record<string, unknown>;
                    defer?: boolean;
                    always_load?: boolean;
                    search_hint?: string;
                    requires_approval?: boolean;
                    execution: {
                        /** @constant */
                        type: "http";
                        url: string;
                        timeout_ms?: number;
                    } | {
                        /** @constant */
                        type: "client";
                    };
                }[];
                mcp_servers?: {
                    name: string;
                    url: string;
                    defer?: boolean;
                    require_approval?: ("always" | "never") | {
                        tools: string[];
                    };
                    header_names: string[];
                }[];
                disclosure?: {
                    tool_search?: boolean;
                    tool_info?: boolean;
                    select_tools?: "auto" | boolean;
                };
                compaction?: {
                    enabled?: boolean;
                    threshold?: number;
                    keep_recent_turns?: number;
                    tool_budget_tokens?: number;
                };
                webhook_tenant?: string;
                approval_ttl_s?: number;
                webhook_secrets_count?: number;
            }[];
            next: string | null;
        };
        AgentDeleted: {
            name: string;
            /** @constant */
            deleted: true;
        };
        SessionCreated: {
            id: string;
            agent: string;
            created_at: string;
            metadata?: Record<string, unknown> | null;
        };
        SessionList: {
            sessions: {
                id: string;
                agent: string;
                created_at: string;
            }[];
            next: string | null;
        };
        SessionState: {
            id: string;
            agent: string;
            /** @enum {unknown} */
            status: "idle" | "running" | "awaiting_tool_results" | "awaiting_approval" | "failed";
            created_at: string;
            metadata?: Record<string, unknown> | null;
            turns: number;
            messages: number;
            last_turn: null | {
                id: string;
                /** @enum {unknown} */
                status: "running" | "completed" | "awaiting_tool_results" | "awaiting_approval" | "failed" | "cancelled" | "interrupted";
                finish_reason: string | null;
                error: null | {
                    code: string;
                    message: string;
                };
            };
            loaded_tools: string[];
            /** @description Open calls with no result yet. `awaited` is false for a call of a turn that failed with it open: a result for it is kept, but no turn goes on with it until POST /retry (or a new message). */
            pending_tool_calls: {
                id: string;
                name: string;
                execution: string;
                awaited: boolean;
            }[];
            context?: {
                estimated_tokens: number;
                view_start_seq: number;
                compactions: number;
                context_window?: number | null;
                threshold?: number | null;
                used?: number | null;
            };
            pending_approvals?: {
                approval_id: string;
                tool_call_id: string;
                name: string;
                input: Record<string, unknown>;
                /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
                resolved_input?: Record<string, unknown>;
                reason: string;
                signature: string;
                requested_at?: string;
                expires_at?: string | null;
            }[];
            pause: null | {
                turn_id: string;
                approvals: {
                    approval_id: string;
                    tool_call_id: string;
                    name: string;
                    input: Record<string, unknown>;
                    /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
                    resolved_input?: Record<string, unknown>;
                    reason: string;
                    signature: string;
                    requested_at?: string;
                    expires_at?: string | null;
                    /** @enum {unknown} */
                    status: "pending" | "approved" | "declined";
                    /** @description Why it was declined, as given (or by its TTL). */
                    decided_reason: string | null;
                }[];
                calls: {
                    id: string;
                    name: string;
                    execution: string;
                    /**
                     * @description `pending`: no result yet (waiting for a person, a client, or to run once approved).
                     * @enum {unknown}
                     */
                    state: "pending" | "resolved" | "synthesized" | "skipped";
                    /** @description Once it has one. */
                    result?: string | Record<string, unknown>[];
                    is_error?: boolean;
                }[];
            };
            /** @description The agent's MCP servers as of their last listing (a turn lists them first). */
            mcp_servers: {
                name: string;
                /** @enum {unknown} */
                status: "connected" | "disconnected";
                tools: number;
                error: string | null;
                checked_at: string;
            }[];
        };
        MessagesPage: {
            messages: {
                seq: number;
                /** @enum {unknown} */
                role: "user" | "assistant";
                /** @enum {unknown} */
                origin: "client" | "model" | "tool" | "synthetic" | "system";
                turn_id?: string | null;
                parts: {
                    /** @enum {unknown} */
                    type: "text" | "thinking" | "tool_use" | "tool_result" | "tool_declarations" | "notice" | "compaction";
                    text?: string;
                    thinking?: string;
                    /** @description thinking: the provider's signature, sent back to it byte for byte. */
                    signature?: string;
                    /** @description thinking: a redacted thinking block's opaque data (Anthropic); `thinking` empty. */
                    redacted?: string;
                    id?: string;
                    name?: string;
                    input?: Record<string, unknown>;
                    tool_use_id?: string;
                    content?: string | Record<string, unknown>[] | null;
                    is_error?: boolean;
                    /** @description tool_declarations: the tool declarations loaded since the last user message; notice: the tool set (a `tools_baseline`, or a `tools_changed` too large to list whole), by name. */
                    tools?: (string | {
                        name: string;
                        description: string;
                        input_schema: Record<string, unknown>;
                        defer_loading?: boolean;
                    })[];
                    /**
                     * @description notice: a change of the tool set (`added`, `removed`), or the set the session started from.
                     * @enum {unknown}
                     */
                    kind?: "tools_changed" | "tools_baseline";
                    /** @description notice (`tools_changed`): the tools made available. */
                    added?: string[];
                    /** @description notice (`tools_changed`): the tools no longer available. */
                    removed?: string[];
                    /** @description notice (`tools_baseline`): the deferred tools' listing of the system prompt. */
                    listing?: string;
                    provider?: string;
                    encrypted?: string;
                }[];
                created_at: string;
            }[];
            /** @description The seq to pass as `after` for the next page; null on the last. A page also ends before 8 MB of stored messages (holding at least one), so it may hold fewer than `limit` with a `next`: a client reads them all by following `next` until it is null. */
            next: number | null;
            compactions: {
                before_seq: number;
                summary: string;
                tokens_before: number;
                tokens_after: number;
                created_at: string;
                turn_id: string | null;
            }[];
            /** @description How each ended turn with a message on this page ended (oldest first): a client rebuilding a transcript can say which turns failed, were stopped or cut off. A turn that wrote no message, or that the retention sweep removed, is not listed. */
            turns: {
                id: string;
                /** @enum {unknown} */
                status: "running" | "completed" | "awaiting_tool_results" | "awaiting_approval" | "failed" | "cancelled" | "interrupted";
                finish_reason: string | null;
                error: null | {
                    code: string;
                    message: string;
                };
            }[];
        };
        SessionEvent: {
            seq: number;
            type: string;
            at: string;
            turn_id: string | null;
            data?: unknown;
        };
        EventsPage: {
            events: {
                seq: number;
                type: string;
                at: string;
                turn_id: string | null;
                data?: unknown;
            }[];
            /** @description The seq to pass as `after` for the next page; null on the last. A page also ends before 8 MB of stored events (holding at least one), so it may hold fewer than `limit` with a `next`: a client reads them all by following `next` until it is null. */
            next: number | null;
        };
        Token: {
            token: string;
            expires_at: string;
            session_id: string;
            actions: string[];
        };
        RunAccepted: {
            run_id: string;
            session_id: string;
            /** @enum {unknown} */
            status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
        };
        Run: {
            run_id: string;
            agent?: string;
            session_id: string;
            /** @enum {unknown} */
            status: "queued" | "running" | "awaiting_approval" | "completed" | "failed";
            turn_id?: string | null;
            created_at?: string;
            started_at?: string | null;
            ended_at?: string | null;
            resumes?: number;
            result?: {
                output: string;
                finish_reason?: string | null;
                usage?: Record<string, unknown>;
            };
            structured_result?: unknown;
            error?: {
                code: string;
                message: string;
            };
            approvals?: {
                approval_id: string;
                tool_call_id: string;
                name: string;
                input: Record<string, unknown>;
                /** @description The arguments the call runs with, its `$tool` references resolved; only when it has any. */
                resolved_input?: Record<string, unknown>;
                reason: string;
                signature: string;
                requested_at?: string;
                expires_at?: string | null;
            }[];
            callback?: {
                url: string;
                status: string;
                attempts: unknown[];
                next_attempt_at?: string | null;
            };
        };
        Cors: {
            tenant: string;
            allowed_origins: string[];
        };
        Cancelled: {
            status: string;
            turn_id: string;
        };
        Deleted: {
            id: string;
            /** @constant */
            deleted: true;
        };
        Cleared: {
            id: string;
            /** @constant */
            cleared: true;
        };
        Compaction: {
            id: string;
            /** @constant */
            compacted: true;
            boundary_seq: number;
            tokens_before: number;
            tokens_after: number;
            tools_kept: string[];
            tools_dropped: string[];
            native: boolean;
            summary_requests: number;
        };
        Revoked: {
            id: string;
            /** @constant */
            revoked: true;
        };
        /** @description One chunk of the AI SDK UI message stream (v1), the JSON of an SSE frame's `data`. Text, reasoning and tool input arrive as start/delta/end (or available) chunks of one id; a step opens with `start-step` and closes with `finish-step`; a turn segment opens with `start` and closes with `finish` (after `error` or `abort` when it did not complete). When the turn runs no more steps and no step is open, an empty step comes before the outcomes told last, so the message's last step holds no answered client call. `data-*` chunks carry service state (`data-turn`, `data-provider-retry`, …). */
        UIMessageChunk: {
            /** @constant */
            type: "start";
            messageId?: string;
            messageMetadata?: unknown;
        } | {
            /** @constant */
            type: "start-step";
        } | {
            /** @constant */
            type: "text-start";
            id: string;
        } | {
            /** @constant */
            type: "text-delta";
            id: string;
            delta: string;
        } | {
            /** @constant */
            type: "text-end";
            id: string;
        } | {
            /** @constant */
            type: "reasoning-start";
            id: string;
        } | {
            /** @constant */
            type: "reasoning-delta";
            id: string;
            delta: string;
        } | {
            /** @constant */
            type: "reasoning-end";
            id: string;
        } | {
            /** @constant */
            type: "tool-input-start";
            toolCallId: string;
            toolName: string;
            /** @description Always true: the tool set is the session's, not the client's. */
            dynamic?: boolean;
            /** @description True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call. */
            providerExecuted?: boolean;
        } | {
            /** @constant */
            type: "tool-input-delta";
            toolCallId: string;
            inputTextDelta: string;
        } | {
            /** @constant */
            type: "tool-input-available";
            toolCallId: string;
            toolName: string;
            input: unknown;
            /** @description Always true: the tool set is the session's, not the client's. */
            dynamic?: boolean;
            /** @description True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call. */
            providerExecuted?: boolean;
        } | {
            /** @constant */
            type: "tool-input-error";
            toolCallId: string;
            toolName: string;
            input: unknown;
            errorText: string;
            /** @description Always true: the tool set is the session's, not the client's. */
            dynamic?: boolean;
            /** @description True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call. */
            providerExecuted?: boolean;
        } | {
            /** @constant */
            type: "tool-output-available";
            toolCallId: string;
            output: unknown;
            /** @description Always true: the tool set is the session's, not the client's. */
            dynamic?: boolean;
            /** @description True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call. */
            providerExecuted?: boolean;
        } | {
            /** @constant */
            type: "tool-output-error";
            toolCallId: string;
            errorText: string;
            /** @description Always true: the tool set is the session's, not the client's. */
            dynamic?: boolean;
            /** @description True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call. */
            providerExecuted?: boolean;
        } | {
            /** @constant */
            type: "tool-approval-request";
            approvalId: string;
            toolCallId: string;
            /** @description Why a person must answer. */
            reason?: string;
            /** @description What the person is asked to approve. */
            approvalDescriptor?: {
                /** @description The tool's name. */
                tool_name: string;
                /** @description Only for a call whose input holds `$tool` references: the arguments it runs with, the referenced values in place (within 64 KiB, long strings cut with a marker), as GET /v1/sessions/{id} shows them in `pending_approvals`. Show the person these, not the references. */
                resolved_input?: Record<string, unknown>;
            };
            /** @description Echo it back with the answer on POST /chat. */
            signature?: string;
        } | {
            /** @constant */
            type: "tool-approval-response";
            approvalId: string;
            approved: boolean;
            reason?: string;
        } | {
            /** @constant */
            type: "tool-output-denied";
            toolCallId: string;
        } | {
            /** @constant */
            type: "finish-step";
        } | {
            /** @constant */
            type: "finish";
            /** @enum {unknown} */
            finishReason?: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";
            messageMetadata?: unknown;
        } | {
            /** @constant */
            type: "error";
            errorText: string;
        } | {
            /** @constant */
            type: "abort";
            reason?: string;
        } | {
            type: string;
            id?: string;
            data: unknown;
            /** @description Delivered to `onData` only, never added to the message. */
            transient?: boolean;
        };
    };
    responses: {
        /** @description An error: a stable `code` and a human-readable `message` */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Over a rate limit (`rate_limited`: an API key's or session token's requests, or a signed webhook request's address past its failed signature checks), or a run's session queue is full (`run_queue_full`) */
        RateLimited: {
            headers: {
                /** @description Seconds to wait before trying again. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description D1 fails or does not answer what the route reads or writes (`database_unavailable`, with Retry-After; a change the request makes may or may not have been made, and retrying it is safe, a webhook run's only with its webhook-id or Idempotency-Key); D1 cannot be read to check the credential, origin or webhook secret and nothing cached may stand in (`directory_unavailable`, with Retry-After); or, minting a session token, no signing secret is configured (`tokens_unavailable`) */
        Unavailable: {
            headers: {
                /** @description Seconds to wait before trying again (`database_unavailable`, `directory_unavailable`). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        ok?: true;
                    };
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Keys, without secrets */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyList"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKeyBody"];
            };
        };
        responses: {
            /** @description The key; shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Key"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Key id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revoked"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    listAgents: {
        parameters: {
            query?: {
                /** @description Page size */
                limit?: number;
                /** @description Cursor: the `next` of the previous page (an agent name) */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Agents */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentList"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent name */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    putAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent name */
                agent: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentBody"];
            };
        };
        responses: {
            /** @description Replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            413: components["responses"]["Error"];
            /** @description `invalid_schema`: a tool schema (`input_schema`, `discovery_schema`) is not a valid JSON Schema (or its root is not an object, or a `pattern` is one the linear-time regex engine cannot run, such as a lookahead or a backreference) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Agent name */
                agent: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentDeleted"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    startRun: {
        parameters: {
            query?: never;
            header?: {
                "webhook-id"?: string;
                "webhook-timestamp"?: string;
                "webhook-signature"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Agent name */
                agent: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunBody"];
            };
        };
        responses: {
            /** @description Accepted; the session holds the run */
            202: {
                headers: {
                    /** @description `true` when this answers a repeated `webhook-id` (or `Idempotency-Key`): the same run. */
                    "x-run-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunAccepted"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Run id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    answerRunApprovals: {
        parameters: {
            query?: never;
            header?: {
                "webhook-id"?: string;
                "webhook-timestamp"?: string;
                "webhook-signature"?: string;
            };
            path: {
                /** @description Run id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolApprovalsBody"];
            };
        };
        responses: {
            /** @description The resumed turn once it ends, or its state while something is still awaited */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Page size */
                limit?: number;
                /** @description Cursor: the `next` of the previous page (a session id) */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionBody"];
            };
        };
        responses: {
            /** @description A retried create: the session, as its create answered it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionCreated"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionCreated"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description State */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionState"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    listMessages: {
        parameters: {
            query?: {
                /** @description Page size */
                limit?: number;
                /** @description Cursor: only items with a greater `seq`; the `next` of the previous page */
                after?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessagesPage"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same key and body returns the same turn; keys starting "run:" are reserved. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageBody"];
            };
        };
        responses: {
            /** @description The turn. SSE (default) or, with `Accept: application/json`, the turn result once it ends. */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            /** @description The turn. SSE (default) or, with `Accept: application/json`, the turn result once it ends. */
            201: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    submitToolResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolResultsBody"];
            };
        };
        responses: {
            /** @description The resumed turn: SSE (default) or, with `Accept: application/json`, the turn result once it ends. As JSON whatever the Accept: the turn's state while other client calls are still awaited, or, for calls of a turn that failed with them open, that failed turn's state (the results are kept; the turn goes on only with POST /retry or a new message) */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    answerToolApprovals: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolApprovalsBody"];
            };
        };
        responses: {
            /** @description The resumed turn, or its state while something is still awaited. SSE (default) or, with `Accept: application/json`, the turn result once it ends. */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    chat: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatBody"];
            };
        };
        responses: {
            /** @description The turn's UI message stream; while the turn still waits for other answers (an approval given, a client output of the same step still due), its state as JSON, whatever the Accept */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            /** @description `invalid_request`, or `unsupported_part`: the newest user message has a part the server cannot read (a `file` part; only text is read), nothing written */
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            /** @description `edit_not_supported`: a user message posted with `messageId` (useChat's edit, `sendMessage({ text, messageId })`), as history is never rewound, nothing written; or the session's state refuses the turn or the answers (`turn_in_progress`, `nothing_to_retry`, `late_result`, …) */
            409: components["responses"]["Error"];
            413: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    openStream: {
        parameters: {
            query?: {
                /** @description Same as Last-Event-ID */
                after?: number;
            };
            header?: {
                /** @description Resume after this frame id */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description No turn streaming and nothing missed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    resumeChatStream: {
        parameters: {
            query?: {
                /** @description Same as Last-Event-ID */
                after?: number;
            };
            header?: {
                /** @description Resume after this frame id */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description Session id */
                id: string;
                /** @description Must equal the session id */
                chatId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description No turn streaming */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    retryTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turn. SSE (default) or, with `Accept: application/json`, the turn result once it ends. */
            200: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            /** @description The turn. SSE (default) or, with `Accept: application/json`, the turn result once it ends. */
            201: {
                headers: {
                    /** @description Always `v1`. */
                    "x-vercel-ai-ui-message-stream"?: "v1";
                    /** @description The turn this stream belongs to. */
                    "x-turn-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                    "application/json": components["schemas"]["TurnResult"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    cancelTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cancelled"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    compactSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Compacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Compaction"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    clearSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cleared */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cleared"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            /** @description `session_unreadable`: the session's storage could not be loaded, which a clear rebuilds, and its own record cannot be read either, so it cannot be kept; nothing is changed, and DELETE removes the session. Otherwise `internal_error` */
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description Page size */
                limit?: number;
                /** @description Cursor: only items with a greater `seq`; the `next` of the previous page */
                after?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventsPage"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    mintToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTokenBody"];
            };
        };
        responses: {
            /** @description The token */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Token"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    getCors: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant */
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Origins */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cors"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    putCors: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant */
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CorsBody"];
            };
        };
        responses: {
            /** @description Saved */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cors"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            413: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTenantSessions: {
        parameters: {
            query?: {
                /** @description Page size */
                limit?: number;
                /** @description Cursor: the `next` of the previous page (a session id) */
                after?: string;
            };
            header?: never;
            path: {
                /** @description Tenant: an API key's, or `webhook:<agent>` (signed runs of an agent without `webhook_tenant`) */
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteTenantSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant: an API key's, or `webhook:<agent>` (signed runs of an agent without `webhook_tenant`) */
                tenant: string;
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
    clearTenantSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant: an API key's, or `webhook:<agent>` (signed runs of an agent without `webhook_tenant`) */
                tenant: string;
                /** @description Session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cleared */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cleared"];
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["RateLimited"];
            /** @description `session_unreadable`: the session's storage could not be loaded, which a clear rebuilds, and its own record cannot be read either, so it cannot be kept; nothing is changed, and DELETE removes the session. Otherwise `internal_error` */
            500: components["responses"]["Error"];
            503: components["responses"]["Unavailable"];
        };
    };
}
