// checkOutboundUrl (src/tools/outbound.ts), the check on every URL the worker fetches for an agent (tools, MCP
// servers, callbacks): private targets in every form refused in production; and parseIpv6.
import { describe, expect, it } from "vitest";
import { checkOutboundUrl, parseIpv6 } from "../../../src/tools/outbound";

// The production policy (SWITCHBOARD_ALLOW_PRIVATE_URLS=false) on every form
// of a private target we know; workerd and Node share the WHATWG URL parser.
const STRICT = false;

describe("outbound URL policy (production)", () => {
  it.each([
    "https://api.example.com/tool",
    "https://8.8.8.8/x",
    "https://[2606:4700:4700::1111]/",
    "https://example.com:8443/path?q=1",
    "https://[64:ff9b::808:808]/", // NAT64 of a public address
    "https://[2002:808:808::1]/", // 6to4 of a public address
  ])("allows %s", (url) => {
    expect(checkOutboundUrl(url, STRICT)).toBeNull();
  });

  it.each([
    ["http://example.com/", "only https"],
    ["ftp://example.com/", "only https"],
    ["file:///etc/passwd", "only https"],
    ["gopher://example.com/", "only https"],
    ["javascript:alert(1)", "only https"],
    ["data:text/plain,hi", "only https"],
    ["https://user:pw@example.com/", "credentials"],
    ["https://user@example.com/", "credentials"],
    ["not a url", "not a valid URL"],
    [`https://example.com/${"a".repeat(5000)}`, "longer than"],
  ])("refuses %s (%s)", (url, why) => {
    expect(checkOutboundUrl(url, STRICT)).toContain(why);
  });

  it.each([
    // loopback in every IPv4 spelling the URL parser normalises
    "https://127.0.0.1/",
    "https://127.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0x7f.1/",
    "https://017700000001/",
    "https://0177.0.0.1/",
    "https://127.000.000.001/",
    "https://127.0.0.1./",
    "https://%31%32%37.0.0.1/",
    "https://１２７.0.0.1/",
    // unspecified / private / link-local / metadata / CGNAT / reserved
    "https://0.0.0.0/",
    "https://0/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/",
    "https://198.18.0.1/",
    "https://192.0.0.8/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    // IPv6
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:8.8.8.8]/",
    "https://[::127.0.0.1]/",
    "https://[::ffff:0:127.0.0.1]/",
    "https://[64:ff9b::127.0.0.1]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://[64:ff9b:1::1]/",
    "https://[2002:7f00:1::1]/",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "https://[2001:db8::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/",
    "https://[fec0::1]/",
    "https://[ff02::1]/",
    "https://[100::1]/",
    // names
    "https://localhost/",
    "https://LOCALHOST./",
    "https://localhost../",
    "https://foo.localhost../",
    "https://intranet../",
    "https://ｌｏｃａｌｈｏｓｔ/",
    "https://api.localhost/",
    "https://printer.local/",
    "https://metadata.google.internal/",
    "https://box.localdomain/",
    "https://nas.home.arpa/",
    "https://intranet/",
  ])("refuses %s", (url) => {
    expect(checkOutboundUrl(url, STRICT)).not.toBeNull();
  });

  it("with private URLs allowed, still refuses credentials and other schemes", () => {
    expect(checkOutboundUrl("http://127.0.0.1:8787/x", true)).toBeNull();
    expect(checkOutboundUrl("http://[::1]/", true)).toBeNull();
    expect(checkOutboundUrl("http://u:p@127.0.0.1/", true)).toContain("credentials");
    expect(checkOutboundUrl("file:///etc/passwd", true)).toContain("http(s)");
  });
});

describe("parseIpv6", () => {
  it("expands compressed forms", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("fe80::1:2")).toEqual([0xfe80, 0, 0, 0, 0, 0, 1, 2]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
  it("rejects malformed ones", () => {
    expect(parseIpv6("1::2::3")).toBeNull();
    expect(parseIpv6("1:2:3")).toBeNull();
    expect(parseIpv6("1:2:3:4:5:6:7:8::")).toBeNull();
    expect(parseIpv6("g::1")).toBeNull();
  });
});
