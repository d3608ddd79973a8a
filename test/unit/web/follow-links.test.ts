// The web client's following of session links opened in a tab that already shows the app (a fragment change).
import { expect, it } from "vitest";
import { readConnection } from "../../../web/src/connection.ts";
import { followLinks, type Tab } from "../../../web/src/follow-links.ts";

/** A tab at `/` whose fragment the test changes, recording the URLs the page sets and its reloads. */
function fakeTab() {
  const events = new EventTarget();
  const items = new Map<string, string>();
  const storage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
  };
  const urls: string[] = [];
  let reloads = 0;
  const tab: Tab = {
    location: { hash: "", pathname: "/", search: "", reload: () => void reloads++ },
    sessionStorage: storage,
    history: { replaceState: (_data, _unused, url) => void urls.push(String(url)) },
    addEventListener: (type, listener) => events.addEventListener(type, listener),
    removeEventListener: (type, listener) => events.removeEventListener(type, listener),
  };
  const openFragment = (hash: string) => {
    tab.location.hash = hash;
    events.dispatchEvent(new Event("hashchange"));
  };
  /** The connection the page reads when it loads again (no fragment any more). */
  const readOnReload = () => readConnection({ hash: "", pathname: "/", search: "" }, storage, tab.history);
  return { tab, openFragment, readOnReload, urls, reloads: () => reloads };
}

it("takes a session link opened in the same tab: keeps it for the reload, clears the address bar, reloads", () => {
  const t = fakeTab();
  followLinks(t.tab);
  t.openFragment("#session=s-follow-link&token=sbt_fresh");
  expect(t.urls).toEqual(["/"]);
  expect(t.reloads()).toBe(1);
  expect(t.readOnReload()).toEqual({ session: "s-follow-link", token: "sbt_fresh" });
});

it("leaves a fragment that carries no session link alone", () => {
  const t = fakeTab();
  followLinks(t.tab);
  t.openFragment("#session=s-follow-no-token");
  expect(t.urls).toEqual([]);
  expect(t.reloads()).toBe(0);
  expect(t.readOnReload()).toBeNull();
});
