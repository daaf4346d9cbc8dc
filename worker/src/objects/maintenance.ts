// The objects' maintenance facets, off their main surface: moving rows from the D1 ledger
// (`ledger:migrate`) and the bench's synthetic months. The worker reaches them through
// `maintenance()` (an RpcTarget, so the call pipelines: `stub.maintenance().importRows(rows)`);
// no production path calls them.
import { RpcTarget } from "cloudflare:workers";
import { benchBulkEnabled, benchMonthRows } from "../bench/month-rows.ts";
import { importIssuerRows, type IssuerRows } from "../ledger/issuer-import.ts";
import type { IssuerMaintenance } from "../ledger/issuer-rpc.ts";
import { importMonthRows, type BenchRowsSpec, type MonthRows } from "../ledger/month-import.ts";
import type { MonthMaintenance } from "../ledger/month-rpc.ts";
import type { MonthDb } from "../ledger/month-receipts.ts";
import type { IssuerDb } from "../ledger/encf-allocation.ts";

export class IssuerMaintenanceFacet extends RpcTarget implements IssuerMaintenance {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: IssuerDb,
  ) {
    super();
  }

  importRows(rows: IssuerRows): void {
    this.storage.transactionSync(() => importIssuerRows(this.db, rows));
  }
}

export class MonthMaintenanceFacet extends RpcTarget implements MonthMaintenance {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: MonthDb,
    private readonly env: Env,
    /** Sets the month's alarm for whatever the rows made due. */
    private readonly schedule: () => void,
  ) {
    super();
  }

  importRows(rows: MonthRows): void {
    this.storage.transactionSync(() => importMonthRows(this.db, rows));
    this.schedule();
  }

  benchLoad(spec: BenchRowsSpec): { databaseSize: number } {
    if (!benchBulkEnabled(this.env)) throw new Error("The bench bulk path is off (BENCH_BULK is not 1).");
    if (spec.count > 0) this.importRows(benchMonthRows(spec));
    return { databaseSize: this.storage.sql.databaseSize };
  }
}
