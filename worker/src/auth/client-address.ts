/**
 * The caller's network address, or null when this deployment cannot know it.
 *
 * A Worker sees no socket address: only `CF-Connecting-IP`, which Cloudflare's edge sets and
 * overwrites on every request. Anywhere else (wrangler dev, a test, a proxy in front) any client
 * can send that header, so it is believed only where `BEHIND_CLOUDFLARE` (wrangler.toml) says the
 * worker runs behind Cloudflare's edge.
 */
export function clientAddress(headers: Headers, behindCloudflare: string | undefined): string | null {
  if (behindCloudflare !== "true") return null;
  const sent = headers.get("CF-Connecting-IP")?.trim();
  // An IPv4 or IPv6 literal, nothing else: the value becomes part of a throttle key.
  return sent && /^[0-9A-Fa-f.:]{2,45}$/.test(sent) ? sent.toLowerCase() : null;
}
