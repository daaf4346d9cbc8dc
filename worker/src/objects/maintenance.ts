// The objects' maintenance facets, off their main surface: moving rows from the D1 ledger
// (`ledger:migrate`) and the bench's synthetic months. The worker reaches them through
// `maintenance()` (an RpcTarget, so the call pipelines: `stub.maintenance().importRows(rows)`);
// no production path calls them.
import { RpcTarget } from "cloudflare:workers";
import { loadBenchRows } from "../bench/month-rows.ts";
import type { IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import { importIssuerRows, type IssuerRows } from "../ledger/issuer/issuer-import.ts";
import type { IssuerMaintenance } from "../ledger/issuer/issuer-rpc.ts";
import type { BenchRowsSpec, MonthRows } from "../ledger/month/month-import.ts";
import type { MonthMaintenance } from "../ledger/month/month-rpc.ts";
import type { MonthHost } from "./month-host.ts";

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
    private readonly host: MonthHost,
  ) {
    super();
  }

  importRows(rows: MonthRows): void {
    this.host.importRows(rows);
  }
  benchLoad(spec: BenchRowsSpec): { databaseSize: number } {
    return loadBenchRows(this.host.env, spec, this.host, this.storage);
  }
}
