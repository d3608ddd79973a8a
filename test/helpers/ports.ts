// Free TCP ports on loopback, for servers started by tests, benchmarks and scripts.
import { createServer } from "node:net";

/** Asks the OS for a free port on `host` (there is a small race until the caller binds it). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port of a probe server"));
        return;
      }
      const { port } = address;
      server.close(() => resolve(port));
    });
  });
}
