// One Durable Object per issuer and month: the receipts, purchases, audit entries and follow-up tasks of that month,
// and their retry schedule as the object's alarm, which replaces the queue and the cron: a receipt recorded before a
// crash is due once its request's claim lapses. A thin shell: storage is ledger/, after DGII is after-dgii/, what
// each write entails is objects/month-host.ts; its surface is facets (MonthRpc), each an RpcTarget reached in the
// same round trip as its method (`stub.receipts().record(values)`).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { runMonthAlarm } from "../after-dgii/month-alarm.ts";
import { nextDueAt } from "../ledger/month/month-due.ts";
import { openMonth } from "../ledger/month/month-open.ts";
import type { MonthDb } from "../ledger/month/month-receipts.ts";
import type * as rpc from "../ledger/month/month-rpc.ts";
import * as monthTables from "../ledger/month/month-tables.ts";
import { AlarmSchedule } from "./alarm-schedule.ts";
import { FollowUpFacet } from "./follow-up-facet.ts";
import { MonthMaintenanceFacet } from "./maintenance.ts";
import { MonthHost } from "./month-host.ts";
import { PurchasesFacet } from "./purchases-facet.ts";
import { ReceiptsFacet } from "./receipts-facet.ts";
import { ReportsFacet } from "./reports-facet.ts";

export class ReceiptMonth extends DurableObject<Env> implements rpc.MonthRpc {
  private readonly db: MonthDb;
  private readonly alarms: AlarmSchedule;
  /** What the facets and the alarm's run read and change of this object (objects/month-host.ts). */
  private readonly host: MonthHost;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema: monthTables });
    this.alarms = new AlarmSchedule(ctx.storage, () => nextDueAt(ctx.storage));
    this.host = new MonthHost(env, this.db, ctx.storage, this.alarms);
    void ctx.blockConcurrencyWhile(async () => {
      await openMonth(this.db, ctx.storage);
      this.alarms.schedule(); // whatever is pending has its alarm (a crash may come between a write and it)
    });
  }

  /** Moves every due receipt, purchase check and task forward once (after-dgii/month-alarm.ts). */
  override async alarm(): Promise<void> {
    await this.alarms.run(new Date(), (now) => runMonthAlarm(this.host, now));
  }

  receipts(): rpc.MonthReceipts {
    return new ReceiptsFacet(this.host);
  }
  purchases(): rpc.MonthPurchases {
    return new PurchasesFacet(this.host);
  }
  reports(): rpc.MonthReports {
    return new ReportsFacet(this.ctx.storage, this.host);
  }
  followUp(): rpc.MonthFollowUp {
    return new FollowUpFacet(this.host);
  }
  /** Moving rows from D1 and the bench's synthetic months (objects/maintenance.ts). */
  maintenance(): rpc.MonthMaintenance {
    return new MonthMaintenanceFacet(this.ctx.storage, this.host);
  }
}
