// One Durable Object per issuer: everything allocated or counted per issuer (ranges, quota, device
// leases, idempotency keys), the index of which month object holds a receipt or a purchase, the
// suppliers' 606 defaults and the shared catalogue. Every method is one RPC whose work runs to
// completion without awaiting, so the object's single thread makes it atomic: two requests can never
// take the same number or the last unit of the quota (numbering's answer then waits for the commit
// it shares with the numberings that arrived meanwhile: ledger/commit-group.ts). A thin shell over ledger/; its surface is IssuerRpc.
// Its alarm is the certificate watch's (certificates/certificate-watch.ts): set for the next
// certificate.expiring notice of the issuer's current certificate.
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { runCertificateWatch, watchCertificate, type CertificateWatchHost } from "../certificates/certificate-watch.ts";
import type { CashierRow, PinHash, ProductRow, ProductValues } from "../ledger/catalog-rows.ts";
import * as catalog from "../ledger/catalog.ts";
import { CommitGroup } from "../ledger/commit-group.ts";
import { IdempotencyKeys, type IdempotencyRequest } from "../ledger/idempotency.ts";
import * as numbering from "../ledger/receipt-numbering.ts";
import type { IssuerMaintenance, IssuerRpc } from "../ledger/issuer-rpc.ts";
import * as issuerTables from "../ledger/issuer-tables.ts";
import migrations from "../ledger/migrations/issuer/migrations.js";
import { invoicesIn, leaseBlock, sequenceOf, type IssuerDb } from "../ledger/encf-allocation.ts";
import type { LeaseLimits } from "../ledger/lease-caps.ts";
import * as index from "../ledger/receipt-index.ts";
import { refusalsAsData, type LedgerResult } from "../ledger/refusal.ts";
import type { Lease, Sequence } from "../ledger/rows.ts";
import * as suppliers from "../ledger/supplier-defaults.ts";
import * as voiding from "../ledger/voided-numbers.ts";
import { IssuerMaintenanceFacet } from "./maintenance.ts";

/** The key (in the object's key-value storage) of the issuer whose certificate the alarm watches. */
const WATCHED_COMPANY = "certificateWatch.companyId";

export class IssuerLedger extends DurableObject<Env> implements IssuerRpc {
  private readonly db: IssuerDb;
  private readonly keys: IdempotencyKeys;
  /** API receipts' numberings, committed in groups. */
  private readonly numberings: CommitGroup<numbering.NumberRequest, numbering.NumberAnswer>;
  /** What the certificate watch reads and changes of this object. */
  private readonly certificates: CertificateWatchHost;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema: issuerTables });
    this.keys = new IdempotencyKeys(this.db);
    this.numberings = new CommitGroup(ctx.storage, (request) => numbering.numberReceipt(this.db, this.keys, request));
    this.certificates = {
      env,
      clock: () => new Date(),
      companyId: () => ctx.storage.kv.get<string>(WATCHED_COMPANY) ?? null,
      rememberCompany: (companyId) => ctx.storage.kv.put(WATCHED_COMPANY, companyId),
      noticeOnce: (key) => numbering.noticeOnce(this.db, key),
      noticeGiven: (key) => numbering.noticeGiven(this.db, key),
      forgetNotice: (key) => numbering.forgetNotice(this.db, key),
      noteMonth: (month) => index.noteMonth(this.db, month),
      setAlarm: (at) => (at === null ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(at)),
    };
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
  }

  watchCertificate(companyId: string, certificate: { serial: string; notAfter: string }, now: string) {
    return watchCertificate(this.certificates, companyId, certificate, new Date(now));
  }
  /** Sends the certificate.expiring notice due, if not sent yet, and sets the alarm for the next. */
  override async alarm(): Promise<void> {
    await runCertificateWatch(this.certificates, this.certificates.clock());
  }

  sequences(): Sequence[] {
    return numbering.sequencesOf(this.db);
  }
  putSequence(tipoeCF: string, range: { rangeFrom: number; rangeTo: number; expiresOn: string }) {
    return refusalsAsData(() => numbering.putSequence(this.db, tipoeCF, range));
  }
  checkIssue(tipoeCF: string | null, idempotency: IdempotencyRequest | null): LedgerResult<numbering.IssueCheck> {
    return refusalsAsData(() => ({
      held: idempotency ? this.keys.holderOf(idempotency) : null,
      sequence: tipoeCF ? (sequenceOf(this.db, tipoeCF) ?? null) : null,
    }));
  }
  number(request: numbering.NumberRequest): Promise<LedgerResult<numbering.NumberAnswer>> {
    return this.numberings.run(request);
  }
  noticeOnce(key: string): boolean {
    return numbering.noticeOnce(this.db, key);
  }
  forgetNotice(key: string): void {
    numbering.forgetNotice(this.db, key);
  }
  invoicesIn(month: string): number {
    return invoicesIn(this.db, month);
  }
  releaseIdempotencyKey(key: string, encf: string): void {
    this.keys.release(key, encf);
  }

  lease(deviceId: string, tipoeCF: string, size: number, today: string, limits?: LeaseLimits): LedgerResult<Lease> {
    return refusalsAsData(() => leaseBlock(this.db, deviceId, tipoeCF, size, today, new Date(), limits));
  }
  leasesOf(deviceId: string): Lease[] {
    return numbering.leasesOf(this.db, deviceId);
  }
  admitDeviceReceipt(deviceId: string, tipoeCF: string, number: number, month: string, quotaMonth: string) {
    return numbering.admitDeviceReceipt(this.db, deviceId, { tipoeCF, number, month }, quotaMonth);
  }
  admitDeviceReceipts(
    deviceId: string,
    receipts: { tipoeCF: string; number: number; month: string }[],
    quotaMonth: string,
  ) {
    return receipts.map((r) => numbering.admitDeviceReceipt(this.db, deviceId, r, quotaMonth));
  }

  monthOf(encf: string): string | null {
    return /^E\d{12}$/.test(encf) ? index.monthOfNumber(this.db, encf.slice(1, 3), Number(encf.slice(3))) : null;
  }
  monthsOf(encfs: string[]): (string | null)[] {
    return encfs.map((encf) => this.monthOf(encf));
  }
  months(from?: string, until?: string): string[] {
    return index.months(this.db, from, until);
  }
  noteMonth(month: string): void {
    index.noteMonth(this.db, month);
  }
  registerPurchase(rncEmisor: string, encf: string, month: string): string {
    return index.registerPurchase(this.db, rncEmisor, encf, month);
  }
  forgetPurchase(rncEmisor: string, encf: string): void {
    index.forgetPurchase(this.db, rncEmisor, encf);
  }

  supplierDefaults(rncs: string[]): suppliers.SupplierDefault[] {
    return suppliers.supplierDefaultsOf(this.db, rncs);
  }
  setSupplierDefault(rncEmisor: string, values: suppliers.SupplierDefaultValues) {
    return suppliers.setSupplierDefault(this.db, rncEmisor, values);
  }
  learnSupplierDefault(rncEmisor: string, values: Partial<suppliers.SupplierDefaultValues>) {
    return suppliers.learnSupplierDefault(this.db, rncEmisor, values);
  }
  deleteSupplierDefault(rncEmisor: string): boolean {
    return suppliers.deleteSupplierDefault(this.db, rncEmisor);
  }

  voidedRangesBetween(from: string, until: string): voiding.VoidedRange[] {
    return voiding.voidedRangesBetween(this.db, from, until);
  }
  voidRangeCheck(tipoeCF: string, from: number, to: number, ownDevice?: string): voiding.VoidRangeCheck {
    return voiding.voidRangeCheck(this.db, tipoeCF, from, to, ownDevice);
  }
  givenUpCheck(deviceId: string, tipoeCF: string, number: number): voiding.GivenUpCheck {
    return voiding.givenUpCheck(this.db, deviceId, tipoeCF, number);
  }
  voiding(step: voiding.VoidingStep): voiding.HeldRange[] {
    return this.ctx.storage.transactionSync(() => voiding.voidingStep(this.db, step));
  }
  numbersHandedOut(tipoeCF: string): voiding.NumbersHandedOut {
    return voiding.numbersHandedOut(this.db, tipoeCF);
  }

  product(id: string): ProductRow | null {
    return catalog.productById(this.db, id) ?? null;
  }
  products(query: catalog.ProductQuery): { rows: ProductRow[]; total: number } {
    return catalog.listProducts(this.db, query);
  }
  createProduct(values: ProductValues): LedgerResult<ProductRow> {
    return refusalsAsData(() => catalog.createProduct(this.db, values, new Date().toISOString()));
  }
  updateProduct(id: string, changes: Partial<ProductValues>, expected: catalog.Expected, ifMatch: string) {
    const now = new Date().toISOString();
    return refusalsAsData(() => catalog.updateProduct(this.db, id, changes, expected, ifMatch, now));
  }
  importProducts(rows: ProductValues[], lines: number[]): LedgerResult<catalog.ImportOutcome> {
    const now = new Date().toISOString();
    return refusalsAsData(() =>
      this.ctx.storage.transactionSync(() => catalog.importProducts(this.db, rows, lines, now)),
    );
  }
  productsAfter(afterCode: string | null, limit: number): ProductRow[] {
    return catalog.productsAfter(this.db, afterCode, limit);
  }
  cashiers(): CashierRow[] {
    return catalog.listCashiers(this.db);
  }
  createCashier(name: string, pin: PinHash): CashierRow {
    return catalog.createCashier(this.db, name, pin, new Date().toISOString());
  }
  updateCashier(id: string, changes: { name?: string; active?: boolean; pin?: PinHash }): LedgerResult<CashierRow> {
    return refusalsAsData(() => catalog.updateCashier(this.db, id, changes, new Date().toISOString()));
  }
  catalogChanges(since: number, limit: number): catalog.CatalogChanges {
    return catalog.catalogChanges(this.db, since, limit);
  }

  /** Moving rows from D1 (objects/maintenance.ts). */
  maintenance(): IssuerMaintenance {
    return new IssuerMaintenanceFacet(this.ctx.storage, this.db);
  }
}
