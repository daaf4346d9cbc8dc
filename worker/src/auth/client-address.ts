/**
 * The caller's network as the throttles count it, or null when this deployment cannot know it.
 *
 * A Worker sees no socket address: only `CF-Connecting-IP`, which Cloudflare's edge sets and
 * overwrites on every request. Anywhere else (wrangler dev, a test, a proxy in front) any client
 * can send that header, so it is believed only where `BEHIND_CLOUDFLARE` (wrangler.toml) says the
 * worker runs behind Cloudflare's edge.
 *
 * An IPv6 caller counts as its /64: a single subscriber is routinely given a whole /64, so counting
 * each address alone would give one guesser 2^64 fresh budgets.
 */
export function clientAddress(headers: Headers, behindCloudflare: string | undefined): string | null {
  if (behindCloudflare !== "true") return null;
  const sent = headers.get("CF-Connecting-IP")?.trim();
  // An IPv4 or IPv6 literal, nothing else: the value becomes part of a throttle key.
  if (!sent || !/^[0-9A-Fa-f.:]{2,45}$/.test(sent)) return null;
  const address = sent.toLowerCase();
  return address.includes(":") ? (ipv6Network(address) ?? address) : address;
}

/** The /64 an IPv6 literal lies in (`2001:db8:1:2::/64`), its IPv4 for a mapped one; null if malformed. */
export function ipv6Network(address: string): string | null {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped) return mapped[1]!;
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const part = (text: string | undefined) => (text ? text.split(":") : []);
  const [head, tail] = [part(halves[0]), part(halves[1])];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
