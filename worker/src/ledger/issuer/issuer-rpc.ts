// What the worker may ask of an IssuerLedger object (objects/issuer-ledger.ts implements it): the
// worker side (ledger/client.ts) types its stubs with these interfaces, so no module imports the
// object class. The object's surface is its facets, each an RpcTarget (objects/*-facet.ts) that a
// call reaches by pipelining, in one round trip: `issuerLedger(env, id).numbering().number(request)`.
// Every method runs to completion without awaiting; a method that may refuse answers a LedgerResult
// (ledger/refusal.ts), unwrapped on the worker side.
import type { LeaseLimits } from "./lease-caps.ts";
import type { CashierRow, PinHash, ProductRow, ProductValues } from "./catalog-rows.ts";
import type { CatalogChanges, Expected, ImportOutcome, ProductQuery } from "./catalog.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import type { IssuerRows } from "./issuer-import.ts";
import type { Admission, IssueCheck, NumberAnswer, NumberRequest } from "./receipt-numbering.ts";
import type { LedgerResult } from "../refusal.ts";
import type { Lease, Sequence } from "./issuer-row-types.ts";
import type { SupplierDefault, SupplierDefaultValues } from "./supplier-defaults.ts";
import type {
  GivenUpCheck,
  HeldRange,
  NumbersHandedOut,
  VoidedRange,
  VoidingStep,
  VoidRangeCheck,
} from "./voided-numbers.ts";

export interface IssuerRpc extends Rpc.DurableObjectBranded {
  /** Ranges, numbering, quota and the notices sent once. */
  numbering(): IssuerNumbering;
  /** Point-of-sale devices' blocks of numbers and the receipts they signed offline. */
  leases(): IssuerLeases;
  /** Where things are: the month object of a receipt or a purchase. */
  index(): IssuerIndex;
  /** Voided ranges and the voiding's steps on the issuer's numbers. */
  voiding(): IssuerVoiding;
  /** The shared catalogue (products, cashiers) and the suppliers' 606 defaults. */
  catalogue(): IssuerCatalogue;
  /** Maintenance, off this surface: moving rows from D1. */
  maintenance(): IssuerMaintenance;
}

/** Ranges, numbering, quota (objects/numbering-facet.ts). */
export interface IssuerNumbering extends Rpc.RpcTargetBranded {
  sequences(): Sequence[];
  /** Registers (or widens) an authorised range. Numbers already used are never handed out again. */
  putSequence(
    tipoeCF: string,
    range: { rangeFrom: number; rangeTo: number; expiresOn: string },
  ): LedgerResult<Sequence>;
  /** Read only: the range a document will be numbered from, and who holds the request's Idempotency-Key. */
  checkIssue(tipoeCF: string | null, idempotency: IdempotencyRequest | null): LedgerResult<IssueCheck>;
  /**
   * Numbers one API receipt: quota unit, e-NCF, index and Idempotency-Key in one write, committed with the
   * numberings that arrive meanwhile (ledger/commit-group.ts).
   */
  number(request: NumberRequest): Promise<LedgerResult<NumberAnswer>>;
  /** True the first time a notice with this key is asked for, false ever after (events sent once). */
  noticeOnce(key: string): boolean;
  /** Takes back a notice that could not be sent after all, so the next ask gives it. */
  forgetNotice(key: string): void;
  /**
   * Sets the object's alarm for the next certificate.expiring notice of the issuer's certificate
   * just stored (certificates/certificate-watch.ts); a renewal's replaces the previous one's.
   */
  watchCertificate(companyId: string, certificate: { serial: string; notAfter: string }, now: string): Promise<void>;
  invoicesIn(month: string): number;
  /** Gives back a key claimed for `encf`, so a corrected retry works. */
  releaseIdempotencyKey(key: string, encf: string): void;
}

/** Point-of-sale devices (objects/leases-facet.ts). */
export interface IssuerLeases extends Rpc.RpcTargetBranded {
  /** A block for a till, within the company's lease limits (ledger/issuer/lease-caps.ts). */
  lease(deviceId: string, tipoeCF: string, size: number, today: string, limits?: LeaseLimits): LedgerResult<Lease>;
  leasesOf(deviceId: string): Lease[];
  /** A receipt a device signed offline, admitted against its leases (counted once, indexed). */
  admitDeviceReceipt(deviceId: string, tipoeCF: string, number: number, month: string, quotaMonth: string): Admission;
  /** A till's batch in one RPC, admitted one after another in the order given. */
  admitDeviceReceipts(
    deviceId: string,
    receipts: { tipoeCF: string; number: number; month: string }[],
    quotaMonth: string,
  ): Admission[];
}

/** Where things are (objects/index-facet.ts). */
export interface IssuerIndex extends Rpc.RpcTargetBranded {
  /** The month object of a receipt, or null when the number was never recorded. */
  monthOf(encf: string): string | null;
  monthsOf(encfs: string[]): (string | null)[];
  months(from?: string, until?: string): string[];
  noteMonth(month: string): void;
  registerPurchase(rncEmisor: string, encf: string, month: string): string;
  forgetPurchase(rncEmisor: string, encf: string): void;
}

/** Voiding (objects/voiding-facet.ts). */
export interface IssuerVoiding extends Rpc.RpcTargetBranded {
  /** Ranges DGII voided in [from, until) (UTC instants), with the months holding their receipts (608). */
  voidedRangesBetween(from: string, until: string): VoidedRange[];
  /** `ownDevice`: that device's own leases do not count (it voids the numbers it gave up). */
  voidRangeCheck(tipoeCF: string, from: number, to: number, ownDevice?: string): VoidRangeCheck;
  /** A number a device gave up: inside its own leases, already voided, and the months that may hold its receipt. */
  givenUpCheck(deviceId: string, tipoeCF: string, number: number): GivenUpCheck;
  /**
   * A voiding's step on the issuer's numbers, in one write: its ranges' unused tails held while DGII
   * is asked (and the months of their receipts), given back, or remembered as voided (VoidingStep).
   */
  advance(step: VoidingStep): HeldRange[];
  numbersHandedOut(tipoeCF: string): NumbersHandedOut;
}

/** The shared catalogue and the 606 defaults per supplier (objects/catalogue-facet.ts). */
export interface IssuerCatalogue extends Rpc.RpcTargetBranded {
  product(id: string): ProductRow | null;
  products(query: ProductQuery): { rows: ProductRow[]; total: number };
  createProduct(values: ProductValues): LedgerResult<ProductRow>;
  /** Changes a product only if it is still at the version If-Match named (checked and written in one step). */
  updateProduct(
    id: string,
    changes: Partial<ProductValues>,
    expected: Expected,
    ifMatch: string,
  ): LedgerResult<ProductRow>;
  /** A whole CSV file in one transaction: every row or none. */
  importProducts(rows: ProductValues[], lines: number[]): LedgerResult<ImportOutcome>;
  productsAfter(afterCode: string | null, limit: number): ProductRow[];
  cashiers(): CashierRow[];
  createCashier(name: string, pin: PinHash): CashierRow;
  updateCashier(id: string, changes: { name?: string; active?: boolean; pin?: PinHash }): LedgerResult<CashierRow>;
  /** What a till pulls: the changes after `since`, products and cashiers in version order. */
  catalogChanges(since: number, limit: number): CatalogChanges;
  supplierDefaults(rncs: string[]): SupplierDefault[];
  setSupplierDefault(rncEmisor: string, values: SupplierDefaultValues): SupplierDefault;
  learnSupplierDefault(rncEmisor: string, values: Partial<SupplierDefaultValues>): SupplierDefault | null;
  deleteSupplierDefault(rncEmisor: string): boolean;
}

/** An issuer object's maintenance facet (objects/maintenance.ts): no production path calls it. */
export interface IssuerMaintenance extends Rpc.RpcTargetBranded {
  /** Rows moved from the D1 ledger (`ledger:migrate`); running it again changes nothing. */
  importRows(rows: IssuerRows): void;
}
