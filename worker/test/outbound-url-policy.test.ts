// The one URL policy every outbound request to a URL from outside goes through (src/outbound):
// table-driven, with workerd's own URL parser (the one that normalises what a caller typed).
import { describe, expect, it } from "vitest";
import { outboundPolicy, outboundUrlProblem } from "../src/outbound/url-policy.ts";

const production = { allowLoopback: false };
const local = { allowLoopback: true };

describe("outbound URL policy", () => {
  it.each([
    // The examples.
    "https://[::127.0.0.1]/hook",
    "https://[64:ff9b::a9fe:a9fe]/hook",
    "https://[fec0::1]/hook",
    "https://localhost./hook",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://198.18.0.1/hook",
    "https://255.255.255.255/hook",
    // IPv4 special-purpose blocks, in every spelling the URL parser accepts.
    "https://0.0.0.0/",
    "https://0.1.2.3/",
    "https://10.0.0.8/",
    "https://100.64.0.1/",
    "https://100.127.255.254/",
    "https://127.0.0.1/",
    "https://127.1/",
    "https://2130706433/",
    "https://0x7f.0.0.1/",
    "https://0177.0.0.1/",
    "https://127.0.0.1./",
    "https://169.254.169.254/latest/meta-data/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.0.0.8/",
    "https://192.0.2.1/",
    "https://192.88.99.1/",
    "https://192.168.1.2/",
    "https://198.19.255.255/",
    "https://198.51.100.7/",
    "https://203.0.113.9/",
    "https://224.0.0.1/",
    "https://239.255.255.250/",
    "https://240.0.0.1/",
    // IPv6: loopback, unspecified, IPv4-embedding forms, NAT64, ULA, link-local, site-local, multicast, documentation.
    "https://[::1]/",
    "https://[::]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:8.8.8.8]/",
    "https://[64:ff9b::10.0.0.1]/",
    "https://[64:ff9b:1::1]/",
    "https://[100::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/",
    "https://[febf::1]/",
    "https://[fec0::1]/",
    "https://[ff02::1]/",
    "https://[2001:db8::1]/",
    "https://[2001::1]/",
    "https://[2002:7f00:1::1]/",
    "https://[3fff::1]/",
    // Names: trailing dots, single labels, internal suffixes, metadata, names that spell an address.
    "https://example.com./hook",
    "https://localhost/",
    "https://LOCALHOST/",
    "https://api.localhost/",
    "https://metadata/",
    "https://intranet/",
    "https://printer.local/",
    "https://db.internal/",
    "https://router.home.arpa/",
    "https://1.0.0.127.in-addr.arpa/",
    "https://metadata.goog/",
    "https://127.0.0.1.nip.io/",
    "https://10-0-0-1.sslip.io/",
    // Schemes and credentials.
    "http://example.com/hook",
    "ftp://example.com/x",
    "file:///etc/passwd",
    "https://user:pass@example.com/",
    "not a url",
  ])("refuses %s", (url) => {
    expect(outboundUrlProblem(url, production)).toEqual(expect.any(String));
  });

  it.each([
    "https://erp.example.com/hooks/ecf",
    "https://ecf.dgii.gov.do/testecf/emisorreceptor",
    "https://hooks.example.com:8443/ecf?x=1",
    "https://8.8.8.8/",
    "https://1.1.1.1/",
    "https://172.32.0.1/",
    "https://100.128.0.1/",
    "https://[2606:4700:4700::1111]/",
    "https://[2a00:1450:4001:80b::200e]/",
  ])("allows %s", (url) => {
    expect(outboundUrlProblem(url, production)).toBeNull();
  });

  it("allows http to loopback only under the local policy, and nothing else private", () => {
    for (const url of [
      "http://127.0.0.1:8788/testecf/emisorreceptor",
      "http://localhost:9/",
      "http://[::1]:9/",
      "http://127.0.0.2/",
    ]) {
      expect(outboundUrlProblem(url, local), url).toBeNull();
      expect(outboundUrlProblem(url, production), url).toEqual(expect.any(String));
    }
    for (const url of [
      "http://10.0.0.1/",
      "http://example.com/",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost./",
      "https://localhost/",
    ]) {
      expect(outboundUrlProblem(url, local), url).toEqual(expect.any(String));
    }
  });

  it("loopback is allowed only with the sandbox as target and the explicit switch", () => {
    expect(outboundPolicy({ DGII_TARGET: "sandbox", OUTBOUND_ALLOW_LOOPBACK: "true" })).toEqual({
      allowLoopback: true,
    });
    expect(outboundPolicy({ DGII_TARGET: "dgii" as "sandbox", OUTBOUND_ALLOW_LOOPBACK: "true" })).toEqual({
      allowLoopback: false,
    });
    expect(outboundPolicy({ DGII_TARGET: "sandbox", OUTBOUND_ALLOW_LOOPBACK: "false" as "true" })).toEqual({
      allowLoopback: false,
    });
  });
});
