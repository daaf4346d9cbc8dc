// The device's HTTP client for the worker (same origin: the worker serves the POS at /pos/).
import type { OutboxEntry } from "./db.ts";
import { oneAtATime, type ServerAnswer, type UploadResult } from "./sync/outbox.ts";

export interface LeaseOut {
  tipoeCF: string;
  rangeFrom: number;
  rangeTo: number;
  expiresOn: string;
}

export interface CompanyOut {
  id: string;
  rnc: string;
  legalName: string;
  tradeName: string | null;
  address: string | null;
  province: string | null;
  municipality: string | null;
  dgiiEnvironment: "testecf" | "certecf" | "ecf";
}

export interface PairedOut {
  device: { id: string; name: string };
  token: string;
  company: CompanyOut;
  signing: { pkcs8: string; certificate: string; certificateSerial: string | null };
  leases: LeaseOut[];
}

/** A product as the issuer's catalogue ships it (GET /devices/catalog). */
export interface CatalogProductOut {
  id: string;
  code: string;
  barcodes: string[];
  name: string;
  price: string;
  priceIncludesItbis: boolean;
  itbisRate: "18" | "16" | "0" | "exempt";
  unit: string;
  kind: "good" | "service";
  active: boolean;
  version: number;
  updatedAt: string;
}

export interface CatalogCashierOut {
  id: string;
  name: string;
  active: boolean;
  version: number;
  pin: { algorithm: "PBKDF2-SHA256"; iterations: number; salt: string; hash: string };
}

/** One page of catalogue changes after a version; `complete: false` means ask again from `nextSince`. */
export interface CatalogPageOut {
  version: number;
  products: CatalogProductOut[];
  cashiers: CatalogCashierOut[];
  nextSince: number;
  complete: boolean;
  device: { canEditPrices: boolean };
}

/** A taxpayer in DGII's registry (GET /devices/contribuyentes/{rnc}). */
export interface TaxpayerOut {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  status: string;
  active: boolean;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { detail?: string; code?: string; deviceRevoked?: boolean; errors?: { code: string; message: string }[] },
  ) {
    super(body.detail ?? `HTTP ${status}`);
  }
}

const TIMEOUT_MS = 15_000;

/** One receipt's result in POST /devices/receipts/batch. */
interface BatchResult {
  encf: string | null;
  status: number;
  answer?: ServerAnswer;
  problem?: { detail?: string; errors?: { code: string; message: string }[] };
}

/** A batch result read as the single upload's answer would be (same statuses, same meaning). */
function classifyBatchResult(result: BatchResult): UploadResult {
  if (result.status === 200 && result.answer?.estado) return { kind: "answer", answer: result.answer };
  const detail = result.problem?.detail ?? `HTTP ${result.status}`;
  if (result.status >= 500 || result.status === 408 || result.status === 429) return { kind: "retry", reason: detail };
  return { kind: "refused", status: result.status, detail, errors: (result.problem?.errors ?? []).map((e) => ({ code: e.code, message: e.message })) };
}

export class DeviceApi {
  constructor(
    private readonly base: string,
    private readonly token?: string,
  ) {}

  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    const parsed = (await res.json().catch(() => ({}))) as T & ApiError["body"];
    if (!res.ok) throw new ApiError(res.status, parsed);
    return parsed;
  }

  pair(pairingCode: string): Promise<PairedOut> {
    return this.json("POST", "/devices/pair", { pairingCode });
  }

  me(): Promise<{ company: CompanyOut; certificateSerial: string | null }> {
    return this.json("GET", "/devices/me");
  }

  signingMaterial(): Promise<PairedOut["signing"]> {
    return this.json("POST", "/devices/signing-material");
  }

  lease(tipoeCF: string, size: number): Promise<LeaseOut> {
    return this.json("POST", "/devices/leases", { tipoeCF, size });
  }

  catalog(since: number, limit?: number): Promise<CatalogPageOut> {
    return this.json("GET", `/devices/catalog?since=${since}${limit ? `&limit=${limit}` : ""}`);
  }

  /** The registry's answer for an RNC or cédula, or null when DGII's registry does not have it. */
  async taxpayer(rnc: string): Promise<TaxpayerOut | null> {
    try {
      return await this.json<TaxpayerOut>("GET", `/devices/contribuyentes/${encodeURIComponent(rnc)}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.body.code === "taxpayer_not_found") return null;
      throw error;
    }
  }

  /** Hands a shift over (idempotent: the same upload again changes nothing; a closed shift is final). */
  putShift(id: string, body: unknown): Promise<unknown> {
    return this.json("PUT", `/devices/shifts/${encodeURIComponent(id)}`, body);
  }

  /**
   * The current state of many uploaded receipts in one request (at most STATE_QUERY_MAX); the
   * ones the server does not know are left out. A server without the list query is asked one by one.
   */
  async receiptStates(encfs: string[]): Promise<ServerAnswer[]> {
    try {
      return (await this.json<{ receipts: ServerAnswer[] }>("GET", `/devices/receipts?encf=${encfs.join(",")}`)).receipts;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      const answers: ServerAnswer[] = [];
      for (const encf of encfs) {
        const answer = await this.receiptState(encf);
        if (answer) answers.push(answer);
      }
      return answers;
    }
  }

  /** The current state of an uploaded receipt, or null when the server does not know it. */
  async receiptState(encf: string): Promise<ServerAnswer | null> {
    try {
      return await this.json<ServerAnswer>("GET", `/devices/receipts/${encf}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * Consecutive outbox entries, classified one by one for the outbox state machine; never throws.
   * A lone receipt (the sale just rung up) goes by the single route, which waits for DGII's
   * verdict so the ticket shows it; a backlog goes in one request, recorded at once and sent to
   * DGII by the server in the background (its answers say En Proceso until the refresh).
   */
  async uploadMany(entries: OutboxEntry[]): Promise<UploadResult[]> {
    if (entries.length === 1) return [await this.upload(entries[0]!)];
    let res: Response;
    try {
      res = await this.request("POST", "/devices/receipts/batch", { receipts: entries.map((e) => ({ xml: e.signedXml })) });
    } catch (error) {
      return [{ kind: "retry", reason: error instanceof Error ? error.message : String(error) }];
    }
    const body = (await res.json().catch(() => null)) as ({ results?: BatchResult[] } & ApiError["body"]) | null;
    if (res.ok && body?.results) return body.results.map(classifyBatchResult);
    if (res.status === 401 && body?.deviceRevoked) return [{ kind: "revoked" }];
    // A server from before batches (no such route), or a body it finds too large: one by one.
    if (res.status === 404 || res.status === 405 || res.status === 413) return oneAtATime((e) => this.upload(e))(entries);
    // Anything else says nothing about the receipts themselves: the whole batch goes again later.
    return [{ kind: "retry", reason: body?.detail ?? `HTTP ${res.status}` }];
  }

  /** One upload, classified for the outbox state machine; never throws. */
  async upload(entry: OutboxEntry): Promise<UploadResult> {
    let res: Response;
    try {
      res = await this.request("POST", "/devices/receipts", { xml: entry.signedXml });
    } catch (error) {
      return { kind: "retry", reason: error instanceof Error ? error.message : String(error) };
    }
    const body = (await res.json().catch(() => null)) as (ServerAnswer & ApiError["body"]) | null;
    if (res.ok && body?.estado) return { kind: "answer", answer: body };
    if (res.status === 401 && body?.deviceRevoked) return { kind: "revoked" };
    // 401 (token), 408, 429 and 5xx say nothing about the receipt itself: try again later.
    if (res.status >= 500 || res.status === 401 || res.status === 408 || res.status === 429 || !body) {
      return { kind: "retry", reason: body?.detail ?? `HTTP ${res.status}` };
    }
    return { kind: "refused", status: res.status, detail: body.detail ?? `HTTP ${res.status}`, errors: body.errors ?? [] };
  }
}
