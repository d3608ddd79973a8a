// The origins a tenant's CORS list may hold (src/http/origin-form.ts; docs/API.md "Tenants: CORS origins"):
// https, http on loopback, an app's own scheme exactly as scheme://host[:port]; never null, file pages, a path,
// query, credentials, wildcard or capitals.
import { describe, expect, it } from "vitest";
import { originProblem } from "../../../src/http/origin-form";

describe("originProblem", () => {
  it.each([
    "https://app.example.com",
    "https://app.example.com:8443",
    "https://tauri.localhost",
    "http://localhost:5173",
    "http://127.0.0.1:3000",
    "http://[::1]:8080",
    "http://tauri.localhost",
    "http://my-app.dev.localhost:3000",
    "capacitor://localhost",
    "ionic://localhost",
    "tauri://localhost",
    "chrome-extension://abcdefghijklmnop",
    "app+x.y://localhost:1234",
  ])("accepts %s", (origin) => {
    expect(originProblem(origin)).toBeNull();
  });

  it.each([
    "null",
    "*",
    "file://",
    "file:///index.html",
    "data://x",
    "blob:https://app.example.com/1",
    "wss://app.example.com",
    "http://app.example.com",
    "http://localhost.example.com",
    "https://app.example.com/",
    "https://APP.example.com",
    "https://user@app.example.com",
    "capacitor://localhost/",
    "capacitor://localhost/index.html",
    "capacitor://localhost?x=1",
    "capacitor://localhost#x",
    "capacitor://user:pw@localhost",
    "capacitor://*.example.com",
    "capacitor://Localhost",
    "Capacitor://localhost",
    "capacitor:localhost",
    "capacitor://",
    "capacitor://local_host",
  ])("refuses %s", (origin) => {
    expect(originProblem(origin)).not.toBeNull();
  });
});
