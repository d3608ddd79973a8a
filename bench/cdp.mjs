// Bench helper — a minimal Chrome DevTools Protocol client for workerd's V8 inspector (`wrangler dev
// --inspector-port`): bench/profile-turn.mjs records CPU profiles with it, bench/load.mjs reads the JS heap.
import { log } from "./lib.mjs";

/** A minimal CDP client over the inspector WebSocket. */
export class Cdp {
  #ws;
  #next = 1;
  #pending = new Map();

  static async connect(port) {
    let targets = null;
    for (let i = 0; i < 50 && !targets?.length; i++) {
      try {
        targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (!targets?.length) throw new Error(`no inspector target on port ${port}`);
    // wrangler lists the user worker first; prefer a target that is not one of its internal workers.
    const target = targets.find((t) => !/wrangler|proxy/i.test(t.title ?? "")) ?? targets[0];
    log(`inspector target: ${target.title ?? target.id} (${targets.length} listed)`);
    // (wrangler's inspector proxy wants a local `Origin`; Node's WebSocket takes headers as an extension.)
    const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "http://localhost" } });
    await new Promise((resolve, reject) => {
      ws.addEventListener("open", resolve, { once: true });
      ws.addEventListener("error", () => reject(new Error("inspector websocket failed")), { once: true });
    });
    return new Cdp(ws);
  }

  constructor(ws) {
    this.#ws = ws;
    ws.addEventListener("message", (event) => {
      const msg = JSON.parse(String(event.data));
      const waiter = msg.id === undefined ? undefined : this.#pending.get(msg.id);
      if (!waiter) return;
      this.#pending.delete(msg.id);
      if (msg.error) waiter.reject(new Error(`${waiter.method}: ${JSON.stringify(msg.error)}`));
      else waiter.resolve(msg.result);
    });
  }

  send(method, params = {}) {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close() {
    this.#ws.close();
  }
}
