// Headless Chromium for browser tests, from the machine (Debian's `chromium` package, which .ci/run installs),
// driven by playwright-core: no browser is downloaded at install time. Set CHROMIUM_PATH to use another binary.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium binary to drive, or null when this machine has none. */
export function chromiumPath(): string | null {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** Why browser tests cannot run here, for the skip message (CI must never skip them). */
export const NO_CHROMIUM =
  "Chromium is missing: browser tests are SKIPPED. Install Debian's package (`sudo apt-get install chromium`) " +
  "or set CHROMIUM_PATH; CI installs it and fails without it.";

/** Launches headless Chromium with the flags this closed network needs (no background connections). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
