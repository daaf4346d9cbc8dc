// Where the service may send a request whose URL came from outside: a webhook endpoint an integrator
// registered, a buyer's or supplier's service named in DGII's directory. Such a URL must never make
// the service call into a network it can reach and the URL's author cannot (SSRF): only https to a
// public name or a global unicast address. The name checks are all a Worker can do (it cannot
// resolve names itself); on Cloudflare, fetch() does not reach private networks in any case.

export interface OutboundPolicy {
  /** Local sandbox only (`npm start`, tests): http to a loopback host is allowed too. */
  allowLoopback: boolean;
}

/**
 * Loopback is allowed only when both say so: the DGII sandbox is the target (never in production,
 * where DGII_TARGET is "dgii") and OUTBOUND_ALLOW_LOOPBACK (wrangler.toml) is "true".
 */
export function outboundPolicy(env: Pick<Env, "DGII_TARGET" | "OUTBOUND_ALLOW_LOOPBACK">): OutboundPolicy {
  return { allowLoopback: env.DGII_TARGET === "sandbox" && env.OUTBOUND_ALLOW_LOOPBACK === ("true" as string) };
}

const MAX_URL_LENGTH = 2048;

/** Special-purpose IPv4 blocks (IANA registry), none of them a public host. */
const REFUSED_V4: readonly [network: string, bits: number, what: string][] = [
  ["0.0.0.0", 8, "'this network'"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignment"],
  ["192.0.2.0", 24, "documentation"],
  ["192.31.196.0", 24, "AS112"],
  ["192.52.193.0", 24, "AMT"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "AS112"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved or broadcast"],
];

/**
 * IPv6: only global unicast (2000::/3) is public, which leaves out loopback, unspecified, every
 * IPv4-embedding form outside it (::a.b.c.d, ::ffff:a.b.c.d, NAT64 64:ff9b::/96 and /48), discard,
 * ULA fc00::/7, link-local fe80::/10, site-local fec0::/10 and multicast. Inside it, these are refused.
 */
const REFUSED_V6_GLOBAL: readonly [network: string, bits: number, what: string][] = [
  ["2001::", 23, "IETF protocol assignment (Teredo, benchmarking, ORCHID)"],
  ["2001:db8::", 32, "documentation"],
  ["2002::", 16, "6to4 (embeds an IPv4 address)"],
  ["3fff::", 20, "documentation"],
];

/** Suffixes that name hosts inside a network, never on the Internet. */
const INTERNAL_SUFFIXES = [
  "localhost",
  "local",
  "localdomain",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "arpa",
  "invalid",
  "onion",
];
/** Cloud metadata services by name, and public names that resolve to whatever address they spell. */
const REFUSED_NAMES = ["metadata.google.internal", "metadata.goog", "instance-data.ec2.internal"];
const REFUSED_NAME_DOMAINS = ["nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me"];

function ipv4Bytes(host: string): number[] | null {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!parts) return null;
  const bytes = parts.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** The 16 bytes of an IPv6 literal (brackets removed), or null when it is not one. */
function ipv6Bytes(literal: string): number[] | null {
  let text = literal;
  const dotted = /(?<=:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text)?.[1];
  if (dotted) {
    const v4 = ipv4Bytes(dotted);
    if (!v4) return null;
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    text = `${text.slice(0, -dotted.length)}${hex(v4[0]!, v4[1]!)}:${hex(v4[2]!, v4[3]!)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (half: string) =>
    half ? half.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : Number.NaN)) : [];
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

function inBlock(bytes: readonly number[], network: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if ((bytes[i >> 3]! & mask) !== (network[i >> 3]! & mask)) return false;
  }
  return true;
}

function ipv4Problem(bytes: readonly number[]): string | null {
  const block = REFUSED_V4.find(([network, bits]) => inBlock(bytes, ipv4Bytes(network)!, bits));
  return block ? `${block[2]} addresses (${block[0]}/${block[1]}) are not allowed` : null;
}

function ipv6Problem(bytes: readonly number[]): string | null {
  if (!inBlock(bytes, [0x20], 3)) return "only global unicast IPv6 addresses (2000::/3) are allowed";
  const block = REFUSED_V6_GLOBAL.find(([network, bits]) => inBlock(bytes, ipv6Bytes(network)!, bits));
  return block ? `${block[2]} addresses (${block[0]}/${block[1]}) are not allowed` : null;
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const v4 = ipv4Bytes(host);
  if (v4) return v4[0] === 127;
  const v6 = host.startsWith("[") ? ipv6Bytes(host.slice(1, -1)) : null;
  return v6?.every((b, i) => b === (i === 15 ? 1 : 0)) === true;
}

function nameProblem(host: string): string | null {
  if (host.endsWith(".")) return "a name ending in a dot is not allowed";
  if (!host.includes(".")) return "a single-label name (an internal host) is not allowed";
  if (!/^[a-z0-9.-]+$/.test(host) || host.split(".").some((label) => label === "" || label.length > 63))
    return "the host name is malformed";
  if (REFUSED_NAMES.includes(host)) return "a cloud metadata service is not allowed";
  const suffix = INTERNAL_SUFFIXES.find((s) => host.endsWith(`.${s}`));
  if (suffix) return `names under .${suffix} are internal and not allowed`;
  if (REFUSED_NAME_DOMAINS.some((d) => host === d || host.endsWith(`.${d}`)))
    return "names that resolve to the address they spell are not allowed";
  return null;
}

/** Why the service must not call `raw`, or null when it may. */
export function outboundUrlProblem(raw: string, policy: OutboundPolicy): string | null {
  if (raw.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not a URL";
  }
  if (url.username || url.password) return "credentials in the URL are not allowed";
  // The URL parser has already turned every IPv4 spelling (0x7f.1, 2130706433, 127.1) into a.b.c.d.
  const host = url.hostname.toLowerCase();
  if (policy.allowLoopback && isLoopback(host) && url.protocol === "http:") return null;
  if (url.protocol !== "https:") return "only https URLs are allowed";
  const v4 = ipv4Bytes(host);
  if (v4) return ipv4Problem(v4);
  if (host.startsWith("[")) {
    const v6 = ipv6Bytes(host.slice(1, -1));
    return v6 ? ipv6Problem(v6) : "the IPv6 address is malformed";
  }
  return nameProblem(host);
}
