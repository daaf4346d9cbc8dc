// The issuer object's catalogue facet (IssuerCatalogue): the products and cashiers every till of
// the issuer shares, versioned so a till pulls only the changes, and the suppliers' 606 defaults.
import { RpcTarget } from "cloudflare:workers";
import type { CashierRow, PinHash, ProductRow, ProductValues } from "../ledger/issuer/catalog-rows.ts";
import * as catalog from "../ledger/issuer/catalog.ts";
import type { IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import type { IssuerCatalogue } from "../ledger/issuer/issuer-rpc.ts";
import { refusalsAsData, type LedgerResult } from "../ledger/refusal.ts";
import * as suppliers from "../ledger/issuer/supplier-defaults.ts";

export class CatalogueFacet extends RpcTarget implements IssuerCatalogue {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: IssuerDb,
  ) {
    super();
  }

  product(id: string): ProductRow | null {
    return catalog.productById(this.db, id);
  }
  products(query: catalog.ProductQuery): { rows: ProductRow[]; total: number } {
    return catalog.listProducts(this.db, query);
  }
  createProduct(values: ProductValues): LedgerResult<ProductRow> {
    return refusalsAsData(() => catalog.createProduct(this.db, values, new Date().toISOString()));
  }
  updateProduct(id: string, changes: Partial<ProductValues>, expected: catalog.Expected, ifMatch: string) {
    return refusalsAsData(() =>
      catalog.updateProduct(this.db, id, changes, expected, ifMatch, new Date().toISOString()),
    );
  }
  /** A whole CSV file in one transaction: every row or none. */
  importProducts(rows: ProductValues[], lines: number[]): LedgerResult<catalog.ImportOutcome> {
    return refusalsAsData(() =>
      this.storage.transactionSync(() => catalog.importProducts(this.db, rows, lines, new Date().toISOString())),
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
}
