// Another taxpayer's emisor-receptor services, as we call them: recepción (our e-CF to a buyer)
// and aprobación comercial (our ACECF to a supplier). A receiver may demand authentication (its
// semilla, signed, exchanged at validacioncertificado for a token); we authenticate when the
// directory names an authentication service or when the receiver answers 401, and keep the token
// per receiver for a while.
import type { CompanySigner } from "../dgii/for-company.ts";
import { exchangeSeed, xmlForm } from "../dgii/seed-auth.ts";
import { serviceUrl } from "./directory.ts";

/** Tokens per receiver host and issuer; receivers give no expiry we can rely on, so 10 minutes. */
const TOKEN_TTL_MS = 10 * 60_000;
const tokens = new Map<string, { token: string; until: number }>();

export class ReceiverClient {
  constructor(
    private readonly rnc: string,
    private readonly signer: CompanySigner,
    private readonly timeoutMs: number,
  ) {}

  /** Seed → sign → token, against the receiver's own authentication service. */
  async token(authHost: string, fresh = false): Promise<string> {
    const cacheKey = `${authHost}|${this.rnc}`;
    const cached = tokens.get(cacheKey);
    if (!fresh && cached && cached.until > Date.now()) return cached.token;
    const answer = await exchangeSeed(
      this.signer,
      async () => {
        const seed = await fetch(serviceUrl(authHost, "/fe/autenticacion/api/semilla"), { signal: AbortSignal.timeout(this.timeoutMs) });
        if (!seed.ok) throw new Error(`semilla answered HTTP ${seed.status}`);
        return seed.text();
      },
      async (form) => {
        const response = await fetch(serviceUrl(authHost, "/fe/autenticacion/api/validacioncertificado"), {
          method: "POST",
          body: form,
          headers: { Accept: "application/json" },
          signal: AbortSignal.timeout(this.timeoutMs),
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
  async post(host: string, path: string, xml: string, fileName: string, authHost?: string | null): Promise<{ url: string; response: Response }> {
    const url = serviceUrl(host, path);
    const send = (token?: string) =>
      fetch(url, { method: "POST", body: xmlForm(xml, fileName), headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(this.timeoutMs) });
    let response = await send(authHost ? await this.token(authHost) : undefined);
    if (response.status === 401) response = await send(await this.token(authHost ?? host, true));
    return { url, response };
  }
}
