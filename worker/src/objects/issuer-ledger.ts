// One Durable Object per issuer: everything allocated or counted per issuer (ranges, quota, device
// leases, idempotency keys), the index of which month object holds a receipt or a purchase, the
// suppliers' 606 defaults and the shared catalogue. Its surface is facets (IssuerRpc), each an
// RpcTarget reached in the same round trip as its method (`stub.numbering().number(request)`).
// Every facet method runs to completion without awaiting, so the object's single thread makes it
// atomic: two requests can never take the same number or the last unit of the quota. A thin shell
// over ledger/: it holds the storage the facets share and hands them out.
// Its alarm is the certificate watch's (certificates/certificate-watch.ts): set for the next
// certificate.expiring notice of the issuer's current certificate.
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { runCertificateWatch, type CertificateWatchHost } from "../certificates/certificate-watch.ts";
import { CommitGroup } from "../ledger/commit-group.ts";
import type { IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import { IdempotencyKeys } from "../ledger/issuer/idempotency.ts";
import type * as rpc from "../ledger/issuer/issuer-rpc.ts";
import * as issuerTables from "../ledger/issuer/issuer-tables.ts";
import migrations from "../ledger/migrations/issuer/migrations.js";
import * as index from "../ledger/issuer/receipt-index.ts";
import * as numbering from "../ledger/issuer/receipt-numbering.ts";
import { CatalogueFacet } from "./catalogue-facet.ts";
import { IndexFacet } from "./index-facet.ts";
import { LeasesFacet } from "./leases-facet.ts";
import { IssuerMaintenanceFacet } from "./maintenance.ts";
import { NumberingFacet } from "./numbering-facet.ts";
import { VoidingFacet } from "./voiding-facet.ts";

/** The key (in the object's key-value storage) of the issuer whose certificate the alarm watches. */
const WATCHED_COMPANY = "certificateWatch.companyId";

export class IssuerLedger extends DurableObject<Env> implements rpc.IssuerRpc {
  private readonly db: IssuerDb;
  private readonly keys: IdempotencyKeys;
  /** API receipts' numberings, committed in groups (ledger/commit-group.ts). */
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

  /** Sends the certificate.expiring notice due, if not sent yet, and sets the alarm for the next. */
  override async alarm(): Promise<void> {
    await runCertificateWatch(this.certificates, this.certificates.clock());
  }

  numbering(): rpc.IssuerNumbering {
    return new NumberingFacet(this.db, this.keys, this.numberings, this.certificates);
  }
  leases(): rpc.IssuerLeases {
    return new LeasesFacet(this.db);
  }
  index(): rpc.IssuerIndex {
    return new IndexFacet(this.db);
  }
  voiding(): rpc.IssuerVoiding {
    return new VoidingFacet(this.ctx.storage, this.db);
  }
  catalogue(): rpc.IssuerCatalogue {
    return new CatalogueFacet(this.ctx.storage, this.db);
  }
  /** Moving rows from D1 (objects/maintenance.ts). */
  maintenance(): rpc.IssuerMaintenance {
    return new IssuerMaintenanceFacet(this.ctx.storage, this.db);
  }
}
