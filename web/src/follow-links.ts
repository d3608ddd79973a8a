// `followLinks`: a session link opened in a tab that already shows the app. Opening `/#session=…&token=…` there
// (pasted into the address bar, a link clicked, the Connect form) changes only the fragment, so the page is not
// loaded again and the connection it read when it loaded would stay: the link is taken as a fresh load takes it
// (stored for the tab, the token out of the address bar) and the page reloads on it.
import { takeLink } from "./connection";

/** The parts of `window` followLinks uses. */
export interface Tab {
  location: Pick<Location, "hash" | "pathname" | "search" | "reload">;
  sessionStorage: Pick<Storage, "setItem">;
  history: Pick<History, "replaceState">;
  addEventListener(type: "hashchange", listener: () => void): void;
  removeEventListener(type: "hashchange", listener: () => void): void;
}

/**
 * Takes each session link the tab's fragment changes to (`hashchange`) and reloads the page on it; a fragment that
 * carries no link changes nothing. Returns the function that stops following (a React effect's cleanup).
 */
export function followLinks(tab: Tab): () => void {
  const onChange = () => {
    if (takeLink(tab.location, tab.sessionStorage, tab.history)) tab.location.reload();
  };
  tab.addEventListener("hashchange", onChange);
  return () => tab.removeEventListener("hashchange", onChange);
}
