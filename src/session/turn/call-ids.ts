/**
 * Session-unique tool_use ids (DESIGN §3, P4). Providers do not all mint
 * globally unique ids: some number the calls of each response (`call_0`,
 * `call_1`, …), and a response may even repeat an id. So every step maps the
 * ids its provider sends onto canonical ones before anything sees them:
 *
 * - the provider's id is kept when the session has never used it (the
 *   `tool_calls` ledger, which `clear` empties) and no earlier block of this
 *   step took it;
 * - otherwise the call gets `<provider id>_<n>`, the smallest n ≥ 2 that is
 *   free (`[A-Za-z0-9_-]` only, as Anthropic requires; a provider id with other
 *   characters or over 200 characters is replaced by `call` as the stem).
 *
 * The mapping is per block index, so two blocks of one response with the same
 * id get two ids. History, the ledger, results, events, the UI stream
 * (`toolCallId`) and `/tool-results` all use the canonical id, and later
 * requests carry it in both the tool_use and its tool_result, so what the
 * provider sees is consistent. A `$tool` reference is left as written: it
 * names an id the model saw in history, which is canonical (a sibling of the
 * same response has no result to pass yet).
 */

import type { ToolUsePart } from "../../model/message";
import type { StreamEvent } from "../../model/stream";

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

export class CallIds {
  /** Canonical id of the tool_use block at each index of this step. */
  readonly #byIndex = new Map<number, string>();
  /** Ids this step has handed out (not yet in the ledger while their block streams). */
  readonly #used = new Set<string>();

  readonly #taken: (id: string) => boolean;
  /** `taken(id)`: the session already has a tool call with this id. */
  constructor(taken: (id: string) => boolean) {
    this.#taken = taken;
  }

  /**
   * The event with every tool_use id made canonical; `renamed` is set when a
   * block_start got an id other than the provider's.
   */
  map(ev: StreamEvent): { ev: StreamEvent; renamed?: { provider_id: string; tool_use_id: string } } {
    switch (ev.type) {
      case "block_start": {
        if (ev.kind !== "tool_use") return { ev };
        const id = this.#assign(ev.index, ev.id);
        return id === ev.id ? { ev } : { ev: { ...ev, id }, renamed: { provider_id: ev.id, tool_use_id: id } };
      }
      case "block_stop": {
        if (ev.part.type !== "tool_use") return { ev };
        const id = this.#of(ev.index, ev.part.id);
        const part: ToolUsePart = { ...ev.part, id };
        return { ev: { ...ev, part } };
      }
      case "block_invalid":
      case "block_incomplete":
        return { ev: { ...ev, id: this.#of(ev.index, ev.id) } };
      default:
        return { ev };
    }
  }

  #of(index: number, providerId: string): string {
    // A block that completed without its start having been seen gets its id now.
    return this.#byIndex.get(index) ?? this.#assign(index, providerId);
  }

  #assign(index: number, providerId: string): string {
    let id = providerId;
    if (this.#busy(id)) {
      const stem = SAFE_ID.test(providerId) ? providerId : "call";
      let n = 2;
      id = `${stem}_${n}`;
      while (this.#busy(id)) id = `${stem}_${++n}`;
    }
    this.#used.add(id);
    this.#byIndex.set(index, id);
    return id;
  }

  #busy(id: string): boolean {
    return this.#used.has(id) || this.#taken(id);
  }
}
