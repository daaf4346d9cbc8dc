// The device's HTTP client for the worker (same origin: the worker serves the POS at /pos/). Calls
// go through @ecf/client, so every path, body and answer is typed from the worker's /openapi.json
// and a problem+json answer arrives as a ProblemError (status, code, detail, errors, the whole
// body). What this module adds is what the till needs: a timeout on every call, and upload
// failures sorted for the outbox state machine (wait and retry, refused, revoked).
import { type components, createClient, type EcfClient, ProblemError } from "@ecf/client";
import { problemHead } from "@ecf/ui-kit";
import type { OutboxEntry } from "./db.ts";
import { oneAtATime, type ServerAnswer, type UploadResult } from "./uploads.ts";

type Schemas = components["schemas"];
/** The issuer as a paired till knows it (kept in the session). */
export type DeviceCompany = Schemas["DeviceCompany"];
export type DevicePaired = Schemas["DevicePaired"];
export type DeviceStatus = Schemas["DeviceStatus"];
export type SigningMaterial = Schemas["SigningMaterial"];
export type DeviceLease = Schemas["DeviceLease"];
/** The types a till may lease numbers for. */
export type LeaseTipo = Schemas["LeaseRequest"]["tipoeCF"];
/** One page of catalogue changes after a version; `complete: false` means ask again from `nextSince`. */
export type DeviceCatalog = Schemas["DeviceCatalog"];
export type CatalogProduct = Schemas["Product"];
export type CatalogCashier = Schemas["DeviceCashier"];
/** A taxpayer in DGII's registry (GET /devices/contribuyentes/{rnc}). */
export type Taxpayer = Schemas["Taxpayer"];
export type ShiftUpload = Schemas["ShiftUpload"];
type BatchResult = Schemas["DeviceReceiptBatchResult"];

/** Every call gives up after this long: a till on a bad line must not hang a sync round. */
export const TIMEOUT_MS = 15_000;

/**
 * An error answer without a problem document (a proxy's or a captive portal's page): only its
 * status is known. Problem answers are ProblemError.
 */
export class UnexpectedAnswer extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
    this.name = "UnexpectedAnswer";
  }
}

/** The HTTP status of an error answer (ProblemError or UnexpectedAnswer); undefined for a network failure. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof ProblemError || error instanceof UnexpectedAnswer ? error.status : undefined;
}

/** The worker said this device is revoked (401 with the `deviceRevoked` extension). */
export function isRevoked(error: unknown): boolean {
  return error instanceof ProblemError && error.status === 401 && error.body.deviceRevoked === true;
}

/** An answer's data; an error answer that is not a problem (the client threw those) as UnexpectedAnswer. */
function answered<D>(result: { data?: D; response: Response }): D {
  if (result.data === undefined) throw new UnexpectedAnswer(result.response.status);
  return result.data;
}

/**
 * A failed single upload, as the outbox reads it. A problem about the receipt itself (4xx) is a
 * refusal, terminal; 401 (the token), 408, 429 and 5xx, a non-problem answer or no answer at all
 * say nothing about the receipt: try again later.
 */
function classifyUploadFailure(error: unknown): UploadResult {
  if (isRevoked(error)) return { kind: "revoked" };
  if (
    !(error instanceof ProblemError) ||
    error.status >= 500 ||
    error.status === 401 ||
    error.status === 408 ||
    error.status === 429
  ) {
    return { kind: "retry", reason: problemHead(error) };
  }
  return {
    kind: "refused",
    status: error.status,
    detail: problemHead(error),
    errors: error.errors.map(({ code, message }) => ({ code, message })),
  };
}

/**
 * A batch result read as the single upload's answer would be (same statuses, same meaning); its
 * problem comes inside the 200.
 */
function classifyBatchResult(result: BatchResult): UploadResult {
  if (result.status === 200 && result.answer?.estado) return { kind: "answer", answer: result.answer };
  const detail = result.problem?.detail || `HTTP ${result.status}`;
  if (result.status >= 500 || result.status === 408 || result.status === 429) return { kind: "retry", reason: detail };
  return {
    kind: "refused",
    status: result.status,
    detail,
    errors: (result.problem?.errors ?? []).map(({ code, message }) => ({ code, message })),
  };
}

export class DeviceApi {
  private readonly client: EcfClient;

  /** Without a token, only `pair` works: the pairing code in its body is the credential. */
  constructor(
    base: string,
    token?: string,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {
    this.client = createClient({ baseUrl: base, ...(token ? { credentials: { deviceToken: token } } : {}) });
  }

  private get signal(): AbortSignal {
    return AbortSignal.timeout(this.timeoutMs);
  }

  /** `publicKey`: the till's own (signing/till-keys.ts); the signing key comes wrapped to it. */
  async pair(pairingCode: string, publicKey?: string): Promise<DevicePaired> {
    const body = publicKey ? { pairingCode, publicKey } : { pairingCode };
    return answered(await this.client.POST("/devices/pair", { body, signal: this.signal }));
  }

  async me(): Promise<DeviceStatus> {
    return answered(await this.client.GET("/devices/me", { signal: this.signal }));
  }

  /**
   * The issuer's key, wrapped to this till: against the one-time code the issuer asked for (POST
   * /tills/{id}/pairing-code), or without one the first time after an owner approved the till.
   */
  async signingMaterial(pairingCode?: string): Promise<SigningMaterial> {
    const body = pairingCode ? { pairingCode } : {};
    return answered(await this.client.POST("/devices/signing-material", { body, signal: this.signal }));
  }

  async lease(tipoeCF: LeaseTipo, size: number): Promise<DeviceLease> {
    return answered(await this.client.POST("/devices/leases", { body: { tipoeCF, size }, signal: this.signal }));
  }

  async catalog(since: number, limit?: number): Promise<DeviceCatalog> {
    const query = { since: String(since), ...(limit ? { limit: String(limit) } : {}) };
    return answered(await this.client.GET("/devices/catalog", { params: { query }, signal: this.signal }));
  }

  /** The registry's answer for an RNC or cédula, or null when DGII's registry does not have it. */
  async taxpayer(rnc: string): Promise<Taxpayer | null> {
    try {
      return answered(
        await this.client.GET("/devices/contribuyentes/{rnc}", { params: { path: { rnc } }, signal: this.signal }),
      );
    } catch (error) {
      if (error instanceof ProblemError && error.status === 404 && error.code === "taxpayer_not_found") return null;
      throw error;
    }
  }

  /** Hands a shift over (idempotent: the same upload again changes nothing; a closed shift is final). */
  async putShift(id: string, body: ShiftUpload): Promise<Schemas["Shift"]> {
    return answered(
      await this.client.PUT("/devices/shifts/{id}", { params: { path: { id } }, body, signal: this.signal }),
    );
  }

  /**
   * The current state of many uploaded receipts in one request (at most STATE_QUERY_MAX); the
   * ones the server does not know are left out. A server without the list query is asked one by one.
   */
  async receiptStates(encfs: string[]): Promise<ServerAnswer[]> {
    try {
      return answered(
        await this.client.GET("/devices/receipts", {
          params: { query: { encf: encfs.join(",") } },
          signal: this.signal,
        }),
      ).receipts;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
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
      return answered(
        await this.client.GET("/devices/receipts/{encf}", { params: { path: { encf } }, signal: this.signal }),
      );
    } catch (error) {
      if (statusOf(error) === 404) return null;
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
    let results: BatchResult[];
    try {
      const body = { receipts: entries.map((e) => ({ xml: e.signedXml })) };
      results = answered(await this.client.POST("/devices/receipts/batch", { body, signal: this.signal })).results;
    } catch (error) {
      if (isRevoked(error)) return [{ kind: "revoked" }];
      // A server from before batches (no such route), or a body it finds too large: one by one.
      const status = statusOf(error);
      if (status === 404 || status === 405 || status === 413) return oneAtATime((e) => this.upload(e))(entries);
      // Anything else says nothing about the receipts themselves: the whole batch goes again later.
      return [{ kind: "retry", reason: problemHead(error) }];
    }
    return results.map(classifyBatchResult);
  }

  /**
   * Asks the server to void numbers this till gave up (ANECF): an answer per number. A server
   * without the route answers nothing, so the numbers wait.
   */
  async voidGivenUp(numbers: Schemas["GivenUpNumbers"]["numbers"]): Promise<Schemas["GivenUpResult"][]> {
    try {
      const body = { numbers };
      return answered(await this.client.POST("/devices/given-up-numbers", { body, signal: this.signal })).results;
    } catch (error) {
      if (statusOf(error) === 404) return [];
      throw error;
    }
  }

  /** One upload, classified for the outbox state machine; never throws. */
  async upload(entry: OutboxEntry): Promise<UploadResult> {
    try {
      const answer = answered(
        await this.client.POST("/devices/receipts", { body: { xml: entry.signedXml }, signal: this.signal }),
      );
      return { kind: "answer", answer };
    } catch (error) {
      return classifyUploadFailure(error);
    }
  }
}
