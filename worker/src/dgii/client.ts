import type { DgiiEnvironment } from "@ecf/shared";
import { AMBIENTE, hostsFor, PATHS, type DgiiHosts } from "./endpoints.ts";
import { DgiiError, errorFromResponse, messagesFromBody, type DgiiMessage } from "./errors.ts";
import { exchangeSeed, xmlForm } from "./seed-auth.ts";

/** DGII's result codes (consultaresultado / RFCE): 0 not found … 4 conditionally accepted. */
export type DgiiCodigo = 0 | 1 | 2 | 3 | 4;

export interface DgiiResult {
  codigo: DgiiCodigo;
  estado: string;
  mensajes: DgiiMessage[];
  /** False when DGII says the e-NCF may be used again (a rejection that did not consume it). */
  secuenciaUtilizada: boolean;
  trackId: string | null;
}

export interface TrackIdEntry {
  trackId: string;
  estado: string;
  fechaRecepcion: string | null;
}

/** Who is talking to DGII: the issuer's environment, RNC, and signing material. */
export interface DgiiIdentity {
  environment: DgiiEnvironment;
  rnc: string;
  key: CryptoKey;
  certificateDer: Uint8Array;
  /** Distinguishes tokens across certificate changes. */
  certificateSerial: string;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

// Tokens are cached per isolate, per environment, issuer and certificate, until DGII's `expira`
// (less a margin), so one seed round-trip serves many receipts.
const tokenCache = new Map<string, Promise<CachedToken>>();
const TOKEN_MARGIN_MS = 60_000;
// DGII's status answers: an ask in flight is shared (until: Infinity), so callers who find the
// last answer expired at the same moment (a burst of receipts) wait for one ask, not one each.
const statusCache = new Map<string, { up: Promise<boolean>; until: number }>();

export interface DgiiClientOptions {
  timeoutMs?: number;
  /** How long a status-service answer is remembered (default 5 s). */
  statusTtlMs?: number;
  fetch?: typeof fetch;
  /** Told how long each HTTP round trip to DGII took (for Server-Timing). */
  onCall?: (what: string, ms: number) => void;
}

function normaliseResult(json: Record<string, unknown>, trackId: string | null): DgiiResult {
  const codigo = Number(json.codigo ?? 0);
  return {
    codigo: ([0, 1, 2, 3, 4].includes(codigo) ? codigo : 2) as DgiiCodigo,
    estado: String(json.estado ?? ""),
    mensajes: Array.isArray(json.mensajes)
      ? json.mensajes.flatMap((m: unknown) => {
          if (typeof m === "string") return m ? [{ codigo: null, valor: m }] : [];
          const o = (m ?? {}) as Record<string, unknown>;
          const valor = o.valor ?? o.mensaje;
          return typeof valor === "string" && valor
            ? [{ codigo: o.codigo != null ? String(o.codigo) : null, valor }]
            : [];
        })
      : [],
    secuenciaUtilizada: json.secuenciaUtilizada !== false,
    trackId: typeof json.trackId === "string" ? json.trackId : trackId,
  };
}

/** The DGII web services for one issuer, with timeouts on every call and errors normalised. */
export class DgiiClient {
  private readonly hosts: DgiiHosts;
  private readonly timeoutMs: number;
  private readonly statusTtlMs: number;
  private readonly fetcher: typeof fetch;
  private readonly onCall?: (what: string, ms: number) => void;

  constructor(
    env: Pick<Env, "DGII_TARGET" | "DGII_SANDBOX_URL">,
    private readonly identity: DgiiIdentity,
    options: DgiiClientOptions = {},
  ) {
    this.hosts = hostsFor(env);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.statusTtlMs = options.statusTtlMs ?? 5_000;
    // Called through a wrapper: workerd refuses a bare `fetch` invoked with another `this`.
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    this.onCall = options.onCall;
  }

  private url(host: keyof DgiiHosts, path: string, query?: Record<string, string>): string {
    const prefix = host === "status" ? "" : `/${this.identity.environment}`;
    const qs = query ? `?${new URLSearchParams(query)}` : "";
    return `${this.hosts[host]}${prefix}${path}${qs}`;
  }

  /** One HTTP call with a timeout; network failures become DgiiError("unreachable" | "timeout"). */
  private async call(what: string, url: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    const started = performance.now();
    try {
      response = await this.fetcher(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      this.onCall?.(what, performance.now() - started);
    } catch (error) {
      this.onCall?.(what, performance.now() - started);
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new DgiiError(
        timedOut ? "timeout" : "unreachable",
        null,
        [],
        `DGII ${what} ${timedOut ? `timed out after ${this.timeoutMs} ms` : `unreachable: ${String(error)}`}`,
      );
    }
    if (!response.ok) throw await errorFromResponse(response, what);
    return response;
  }

  private async json<T>(what: string, response: Response): Promise<T> {
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new DgiiError(
        "http",
        response.status,
        messagesFromBody(text, response.headers.get("content-type")),
        `DGII ${what} answered with something that is not JSON`,
      );
    }
  }

  /** Seed → sign → token, cached until DGII's expiry. */
  async token(): Promise<string> {
    const { environment, rnc, certificateSerial } = this.identity;
    const cacheKey = `${this.hosts.ecf}|${environment}|${rnc}|${certificateSerial}`;
    const cached = tokenCache.get(cacheKey);
    if (cached) {
      const value = await cached.catch(() => undefined);
      if (value && value.expiresAt - TOKEN_MARGIN_MS > Date.now()) return value.token;
      tokenCache.delete(cacheKey);
    }
    const fresh = this.authenticate();
    tokenCache.set(cacheKey, fresh);
    fresh.catch(() => tokenCache.delete(cacheKey));
    return (await fresh).token;
  }

  /** Forgets the cached token (after DGII refuses it). */
  forgetToken(): void {
    const { environment, rnc, certificateSerial } = this.identity;
    tokenCache.delete(`${this.hosts.ecf}|${environment}|${rnc}|${certificateSerial}`);
  }

  private async authenticate(): Promise<CachedToken> {
    let status = 0;
    const answer = await exchangeSeed(
      this.identity,
      async () => (await this.call("semilla", this.url("ecf", PATHS.semilla))).text(),
      async (form) => {
        const response = await this.call("validarsemilla", this.url("ecf", PATHS.validarSemilla), {
          method: "POST",
          body: form,
        });
        status = response.status;
        return this.json<{ token?: string; expira?: string }>("validarsemilla", response);
      },
    );
    if (!answer) throw new DgiiError("http", status, [], "DGII validarsemilla answered without a token");
    const expiresAt = answer.expira ? Date.parse(answer.expira) : NaN;
    return { token: answer.token, expiresAt: Number.isNaN(expiresAt) ? Date.now() + 30 * 60_000 : expiresAt };
  }

  /** An authenticated call; a 401 refreshes the token once. */
  private async authed(what: string, url: string, init: RequestInit = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      // Without a token the request itself never goes out: a failure here is certain not to be recorded.
      const token = await this.token().catch((error: unknown) => {
        throw error instanceof DgiiError ? DgiiError.beforeSending(error) : error;
      });
      try {
        return await this.call(what, url, {
          ...init,
          headers: { ...init.headers, Authorization: `Bearer ${token}`, Accept: "application/json" },
        });
      } catch (error) {
        if (attempt === 0 && error instanceof DgiiError && error.status === 401) {
          this.forgetToken();
          continue;
        }
        throw error;
      }
    }
  }

  /** Sends a signed e-CF; DGII answers with a track id. File name: {RNCEmisor}{eNCF}.xml. */
  async sendEcf(signedXml: string, encf: string): Promise<string> {
    const response = await this.authed("recepcion", this.url("ecf", PATHS.recepcion), {
      method: "POST",
      body: xmlForm(signedXml, `${this.identity.rnc}${encf}.xml`),
    });
    const body = await this.json<{ trackId?: string | null }>("recepcion", response);
    if (!body.trackId)
      throw new DgiiError(
        "http",
        response.status,
        messagesFromBody(JSON.stringify(body), "application/json"),
        "DGII recepcion answered without a track id",
      );
    return body.trackId;
  }

  /** Sends a signed RFCE (E32 under 250,000): DGII answers at once. */
  async sendRfce(signedRfce: string, encf: string): Promise<DgiiResult> {
    const response = await this.authed("recepcionfc", this.url("fc", PATHS.recepcionFc), {
      method: "POST",
      body: xmlForm(signedRfce, `${this.identity.rnc}${encf}.xml`),
    });
    return normaliseResult(await this.json("recepcionfc", response), null);
  }

  async consultaResultado(trackId: string): Promise<DgiiResult> {
    const response = await this.authed(
      "consultaresultado",
      this.url("ecf", PATHS.consultaResultado, { trackid: trackId }),
    );
    return normaliseResult(await this.json("consultaresultado", response), trackId);
  }

  /** Every track id DGII gave for this e-NCF: how a crash between sending and recording is healed. */
  async consultaTrackIds(encf: string): Promise<TrackIdEntry[]> {
    const response = await this.authed(
      "consultatrackids",
      this.url("ecf", PATHS.consultaTrackIds, { RncEmisor: this.identity.rnc, Encf: encf }),
    );
    const body = await this.json<unknown>("consultatrackids", response);
    return Array.isArray(body) ? (body as TrackIdEntry[]) : [];
  }

  /** DGII's view of an e-CF or RFCE by its identifiers (codigo 0 when DGII does not have it). */
  async consultaEstado(encf: string, codigoSeguridad: string, rncComprador?: string | null): Promise<DgiiResult> {
    const query: Record<string, string> = {
      RncEmisor: this.identity.rnc,
      NcfElectronico: encf,
      CodigoSeguridad: codigoSeguridad,
    };
    if (rncComprador) query.RncComprador = rncComprador;
    const response = await this.authed("consultaestado", this.url("ecf", PATHS.consultaEstado, query));
    return normaliseResult(await this.json("consultaestado", response), null);
  }

  /**
   * DGII's view of another issuer's e-CF addressed to us (a purchase): the supplier's RNC, its
   * e-NCF and security code, our RNC as the buyer (codigo 0 when DGII does not have it).
   */
  async consultaEstadoOf(rncEmisor: string, encf: string, codigoSeguridad: string): Promise<DgiiResult> {
    const query = {
      RncEmisor: rncEmisor,
      NcfElectronico: encf,
      RncComprador: this.identity.rnc,
      CodigoSeguridad: codigoSeguridad,
    };
    const response = await this.authed("consultaestado", this.url("ecf", PATHS.consultaEstado, query));
    return normaliseResult(await this.json("consultaestado", response), null);
  }

  /** Consulta Directorio: where a taxpayer receives e-CF and approvals (an empty list when it does not). */
  async directorio<T>(rnc: string): Promise<T[]> {
    const response = await this.authed("consultadirectorio", this.url("ecf", PATHS.directorioPorRnc, { RNC: rnc }));
    const body = await this.json<unknown>("consultadirectorio", response);
    return Array.isArray(body) ? (body as T[]) : [];
  }

  /** Voids ranges with a signed ANECF. */
  async anularRangos(
    signedAnecf: string,
    fileName: string,
  ): Promise<{ codigo: string; nombre: string; mensajes: string[] }> {
    const response = await this.authed("anulacionrangos", this.url("ecf", PATHS.anularRango), {
      method: "POST",
      body: xmlForm(signedAnecf, fileName),
    });
    return this.json("anulacionrangos", response);
  }

  /** Sends DGII its copy of a commercial approval (ACECF). */
  async sendAprobacionComercial(signedAcecf: string, fileName: string): Promise<unknown> {
    const response = await this.authed("aprobacioncomercial", this.url("ecf", PATHS.aprobacionComercial), {
      method: "POST",
      body: xmlForm(signedAcecf, fileName),
    });
    return this.json("aprobacioncomercial", response);
  }

  /**
   * True when DGII's status service says this environment is up. Asked before sending (not before
   * queries), remembered for a few seconds per isolate so a burst of receipts asks once.
   */
  async isAvailable(): Promise<boolean> {
    return (await this.status()).up;
  }

  /** DGII's status answer and until when it is reused (epoch ms): before then, asking again is pointless. */
  async status(): Promise<{ up: boolean; until: number }> {
    const key = `${this.hosts.status}|${this.identity.environment}`;
    const known = statusCache.get(key);
    if (known && known.until > Date.now()) {
      const up = await known.up;
      // (An ask that was in flight has its time set by its asker by now; if not, it is fresh.)
      return { up, until: Number.isFinite(known.until) ? known.until : Date.now() + this.statusTtlMs };
    }
    const asked = { up: this.askStatus(), until: Number.POSITIVE_INFINITY };
    statusCache.set(key, asked);
    const up = await asked.up;
    asked.until = Date.now() + this.statusTtlMs;
    return { up, until: asked.until };
  }

  private async askStatus(): Promise<boolean> {
    try {
      const response = await this.call(
        "verificarestado",
        this.url("status", PATHS.verificarEstado, { ambiente: AMBIENTE[this.identity.environment] }),
      );
      const body = await this.json<{ estado?: string }>("verificarestado", response);
      return body.estado === "Disponible";
    } catch {
      return false;
    }
  }
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
