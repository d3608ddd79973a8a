/**
 * The run-time engine's `format` checks that replace @cfworker/json-schema's own. Its `url` regex backtracks
 * exponentially on a host with no dot (`http://` and 24 letters: 0.2 s in Node, 50: never done), and the value is
 * written by the model, so that check is replaced here, at module load, in the library's `format` map, which its
 * validator reads by name on every call (compile.ts imports this module). So is `regex`: the library compiles the
 * string with V8, which builds each `\p{…}` set anew (46 s for a 500,000-character `[\p{L}\p{L}…]`), and by the
 * global `RegExp`, which a validation with patterns replaces (linear-regexp.ts); regex-syntax.ts checks it with
 * the native engine, each property once. Every other format it registers measured linear on adversarial inputs and
 * is kept (README, "Architecture", JSON Schema). The map also loses its prototype, so a format named after an
 * object's method is one the validator does not know.
 */
import { format } from "@cfworker/json-schema";
import { isUnicodeRegex } from "./regex-syntax";

/**
 * The schemes a `url` may have, followed by `//` and the host (no third slash, which the URL parser would skip), as
 * the library's regex required.
 */
const WEB_SCHEME = /^(?:https?|ftp):\/\/(?![/\\])/i;
/** The URL parser drops tabs and newlines and trims spaces and controls; a `url` has none of them. */
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;
/** Where the authority ends (`\` is a `/` in web URLs). */
const AUTHORITY_END = /[/?#\\]/;
/** A DNS name has at most 253 characters and a label at most 63, both counted in their ASCII (punycode) form. */
const MAX_NAME = 253;
const MAX_LABEL = 63;
/**
 * The longest host-and-port text that can still name at most 253 characters: a percent escape writes one character
 * in three. Checked before the URL parser sees the text, since its IDNA step is quadratic in a label's length
 * (100,000 distinct CJK characters: 9 s in Node).
 */
const MAX_HOST_TEXT = 3 * MAX_NAME + ":65535".length;
/** A dotted-quad IPv4 address, the only form the URL parser writes an IPv4 host in. */
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** A label of a domain name: letters, digits and inner hyphens (punycode's `xn--` too). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** A top-level domain: letters, or an internationalized one in its punycode form. */
const TOP_LEVEL = /^(?:[a-z]{2,}|xn--[a-z0-9-]+)$/;

/** The host and port as written, between the scheme's `//` (and any `user@`) and the path. */
function hostText(value: string, schemeEnd: number): string {
  const rest = value.slice(schemeEnd);
  const end = rest.search(AUTHORITY_END);
  const authority = end === -1 ? rest : rest.slice(0, end);
  return authority.slice(authority.lastIndexOf("@") + 1);
}

function isDomainName(host: string): boolean {
  const labels = host.split(".");
  return (
    labels.length >= 2 &&
    host.length <= MAX_NAME &&
    TOP_LEVEL.test(labels.at(-1) ?? "") &&
    labels.every((label) => label.length <= MAX_LABEL && LABEL.test(label))
  );
}

/**
 * `url`: an absolute http, https or ftp URL, written with `//`, without spaces or control characters, that the
 * WHATWG URL parser (the one `fetch` uses) reads, whose host is a domain name with a top-level domain (letters, or
 * punycode for an internationalized one), an IPv4 or IPv6 address, or `localhost`. Private and loopback addresses
 * are accepted: a format says what a string is, not where a request may go (the outbound URL policy does that).
 * Linear in the string's length.
 */
function isUrl(value: string): boolean {
  const scheme = WEB_SCHEME.exec(value);
  if (!scheme || SPACE_OR_CONTROL.test(value)) return false;
  if (hostText(value, scheme[0].length).length > MAX_HOST_TEXT) return false;
  let host: string;
  try {
    host = new URL(value).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host.startsWith("[") || IPV4.test(host) || isDomainName(host);
}

format.url = isUrl;
// The library also refused a `\Z` after a character other than a backslash: in `u` mode that is a syntax error.
format.regex = isUnicodeRegex;
// The library looks a format up by name in this map, so a name an object inherits (`isPrototypeOf`, `__proto__`) was
// a check too: `isPrototypeOf` refused every string and `__proto__` failed the validation. With no prototype such a
// name is a format the validator does not know, which is not checked, as `int64` is not.
Object.setPrototypeOf(format, null);
