// The web client's connection: read from the URL fragment or the tab's storage, the token kept out of the address bar.
import { expect, it } from "vitest";
import { readConnection } from "../../../web/src/connection.ts";

function memoryStorage(): Pick<Storage, "getItem" | "setItem"> {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

it("removes the session token from the address bar once it has read and stored it", () => {
  const urls: string[] = [];
  const history = {
    replaceState: (_data: unknown, _unused: string, url?: string | URL | null) => urls.push(String(url)),
  };
  const storage = memoryStorage();
  const place = { hash: "#session=s-conn-strip&token=sbt_secret", pathname: "/", search: "?lang=en" };
  expect(readConnection(place, storage, history)).toEqual({ session: "s-conn-strip", token: "sbt_secret" });
  expect(urls).toEqual(["/?lang=en"]);
  // A reload (no fragment any more) still finds the connection, in the tab's storage.
  expect(readConnection({ hash: "", pathname: "/", search: "?lang=en" }, storage, history)).toEqual({
    session: "s-conn-strip",
    token: "sbt_secret",
  });
  expect(urls).toHaveLength(1);
});
