// Every request to a URL that came from outside goes through here: the URL policy first, then a
// fetch that follows no redirect (a 3xx is a failure: its Location was never checked), gives up
// after a timeout, and reads at most a few KiB of the answer (a stream stopped, never read whole).
import { outboundUrlProblem, type OutboundPolicy } from "./url-policy.ts";

export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

export interface OutboundLimits {
  timeoutMs: number;
  /** The most answer bytes read; beyond it the stream is cancelled. */
  maxBytes: number;
  /** "truncate": keep the first maxBytes (a log excerpt); "fail": a larger answer is an error. */
  overflow: "truncate" | "fail";
}

/** The answer, its body already read (within the limits) into a fresh Response. */
export async function outboundFetch(
  policy: OutboundPolicy,
  url: string,
  init: RequestInit,
  limits: OutboundLimits,
): Promise<Response> {
  const problem = outboundUrlProblem(url, policy);
  if (problem) throw new OutboundRefused(`URL refused (${url}): ${problem}`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const response = await fetch(url, { ...init, redirect: "manual", signal });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const location = response.headers.get("Location") ?? "nowhere";
    throw new OutboundRefused(
      `${url} answered HTTP ${response.status} (to ${location.slice(0, 200)}); redirects are not followed`,
    );
  }
  const body = await readCapped(response, limits, signal);
  return new Response(response.status === 204 || response.status === 205 ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function readCapped(
  response: Response,
  limits: OutboundLimits,
  signal: AbortSignal,
): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Uint8Array(limits.maxBytes);
  let length = 0;
  if (!response.body) return out.subarray(0, 0);
  const reader = response.body.getReader();
  const timedOut = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  timedOut.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), timedOut]);
      if (done) return out.subarray(0, length);
      const room = limits.maxBytes - length;
      if (value.byteLength > room) {
        if (limits.overflow === "fail") throw new OutboundRefused(`the answer is larger than ${limits.maxBytes} bytes`);
        out.set(value.subarray(0, room), length);
        return out.subarray(0, limits.maxBytes);
      }
      out.set(value, length);
      length += value.byteLength;
    }
  } finally {
    // Stops the transfer of whatever was not read (a no-op once the stream is done).
    reader.cancel().catch(() => undefined);
  }
}
