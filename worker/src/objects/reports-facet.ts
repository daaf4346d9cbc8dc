// The month object's reports facet (MonthReports): report pages and the monthly formats'
// (606/607/608) rows and heads computed by SQL inside the object, the figures they read, the
// classifications an accountant adds, and the tills' shifts.
import { RpcTarget } from "cloudflare:workers";
import { issuerLedger } from "../ledger/client.ts";
import { purchasesHead } from "../ledger/month/month-purchases-head.ts";
import { salesHead, type SalesHead } from "../ledger/month/month-sales-head.ts";
import type { MonthReports } from "../ledger/month/month-rpc.ts";
import * as monthly from "../ledger/month/monthly-rows.ts";
import { reportSlice } from "../ledger/month/report-slice.ts";
import type { ReportName, ReportSliceQuery } from "../ledger/month/report-specs.ts";
import type { Purchase, Receipt } from "../ledger/rows.ts";
import { putShift, shiftSlice, type NewShift, type ShiftSliceQuery } from "../ledger/month/shift-rows.ts";
import type { MonthHost } from "./month-host.ts";

export class ReportsFacet extends RpcTarget implements MonthReports {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly host: MonthHost,
  ) {
    super();
  }

  reportSlice(name: ReportName, query: ReportSliceQuery) {
    return reportSlice(this.host.db, name, query);
  }
  receiptsPage(query: monthly.MonthPageQuery): monthly.PagedReceipt[] {
    return monthly.receiptsPage(this.host.db, query);
  }
  purchasesPage(query: monthly.MonthPageQuery): Purchase[] {
    return monthly.purchasesPage(this.host.db, query);
  }
  rowsWithoutFigures(limit: number): { rows: monthly.FigureRef[]; total: number } {
    return monthly.figuresToRead(this.host.db, limit);
  }
  storeFigures(rows: { table: "receipts" | "purchases"; id: string; figures: string }[]): void {
    this.storage.transactionSync(() => monthly.storeFigures(this.host.db, rows));
  }
  classifyPurchase(id: string, changes: monthly.PurchaseClassificationChanges): Purchase | null {
    return monthly.classifyPurchase(this.host.db, id, changes);
  }
  recordSaleWithholding(encf: string, changes: monthly.SaleWithholdingChanges): Receipt | null {
    return monthly.recordSaleWithholding(this.host.db, encf, changes);
  }
  voidedReceipts(tipoeCF: string, firstNumber: number, lastNumber: number) {
    return monthly.voidedReceipts(this.host.db, tipoeCF, firstNumber, lastNumber);
  }
  salesHead(tipos: string[]): SalesHead {
    return salesHead(this.host.db, tipos);
  }
  purchasesHead(companyId: string, tipos: string[], issuerRnc: string) {
    return purchasesHead(this.host.db, tipos, issuerRnc, (rncs) =>
      issuerLedger(this.host.env, companyId).catalogue().supplierDefaults(rncs),
    );
  }
  putShift(row: NewShift) {
    return putShift(this.host.db, row);
  }
  shiftSlice(query: ShiftSliceQuery) {
    return shiftSlice(this.host.db, query);
  }
}
