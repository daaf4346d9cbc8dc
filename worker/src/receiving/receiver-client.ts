// Another taxpayer's emisor-receptor services, as we call them: recepción (our e-CF to a buyer)
// and aprobación comercial (our ACECF to a supplier). A receiver may demand authentication (its
// semilla, signed, exchanged at validacioncertificado for a token); we authenticate when the
// directory names an authentication service or when the receiver answers 401, and keep the token
// per receiver for a while.
import type { CompanySigner } from "../dgii/for-company.ts";
import { outboundFetch } from "../outbound/fetch.ts";
import type { OutboundPolicy } from "../outbound/url-policy.ts";
import { exchangeSeed, xmlForm } from "../dgii/seed-auth.ts";
import { serviceUrl } from "../dgii/directory.ts";

/** Tokens per receiver host and issuer; receivers give no expiry we can rely on, so 10 minutes. */
const TOKEN_TTL_MS = 10 * 60_000;
const tokens = new Map<string, { token: string; until: number }>();
/** An ARECF, a seed or a token is a few KiB: a larger answer is refused, never read whole. */
const ANSWER_BYTES = 256 * 1024;

export class ReceiverClient {
  constructor(
    private readonly rnc: string,
    private readonly signer: CompanySigner,
    private readonly timeoutMs: number,
    /** The receiver's URLs come from DGII's directory: outside input, under the outbound policy. */
    private readonly policy: OutboundPolicy,
  ) {}

  /** Every call: the URL policy, no redirect, the timeout, the answer capped (outbound/fetch.ts). */
  private fetch(url: string, init: RequestInit = {}): Promise<Response> {
    return outboundFetch(this.policy, url, init, {
      timeoutMs: this.timeoutMs,
      maxBytes: ANSWER_BYTES,
      overflow: "fail",
    });
  }

  /** Seed → sign → token, against the receiver's own authentication service. */
  async token(authHost: string, fresh = false): Promise<string> {
    const cacheKey = `${authHost}|${this.rnc}`;
    const cached = tokens.get(cacheKey);
    if (!fresh && cached && cached.until > Date.now()) return cached.token;
    const answer = await exchangeSeed(
      this.signer,
      async () => {
        const seed = await this.fetch(serviceUrl(authHost, "/fe/autenticacion/api/semilla"));
        if (!seed.ok) throw new Error(`semilla answered HTTP ${seed.status}`);
        return seed.text();
      },
      async (form) => {
        const response = await this.fetch(serviceUrl(authHost, "/fe/autenticacion/api/validacioncertificado"), {
          method: "POST",
          body: form,
          headers: { Accept: "application/json" },
        });
        if (!response.ok) throw new Error(`validacioncertificado answered HTTP ${response.status}`);
        return (await response.json()) as { token?: string };
      },
    );
    if (!answer) throw new Error("validacioncertificado answered without a token");
    tokens.set(cacheKey, { token: answer.token, until: Date.now() + TOKEN_TTL_MS });
    return answer.token;
  }

  /**
   * POSTs a document to `host` + `path`. With `authHost` (the directory's urlOpcional) it
   * authenticates first; a 401 makes it authenticate (again) and try once more.
   */
  async post(
    host: string,
    path: string,
    xml: string,
    fileName: string,
    authHost?: string | null,
  ): Promise<{ url: string; response: Response }> {
    const url = serviceUrl(host, path);
    const send = (token?: string) =>
      this.fetch(url, {
        method: "POST",
        body: xmlForm(xml, fileName),
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    let response = await send(authHost ? await this.token(authHost) : undefined);
    if (response.status === 401) response = await send(await this.token(authHost ?? host, true));
    return { url, response };
  }
}
