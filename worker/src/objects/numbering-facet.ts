// The issuer object's numbering facet: ranges, API receipts' numbers, the quota, and the notices
// sent once (IssuerNumbering). Each method runs to completion without awaiting, so the object's
// single thread makes it atomic; numbering's answer waits for the commit it shares with the
// numberings that arrived meanwhile (ledger/commit-group.ts).
import { RpcTarget } from "cloudflare:workers";
import { watchCertificate, type CertificateWatchHost } from "../certificates/certificate-watch.ts";
import type { CommitGroup } from "../ledger/commit-group.ts";
import { invoicesIn, type IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import type { IdempotencyKeys, IdempotencyRequest } from "../ledger/issuer/idempotency.ts";
import type { IssuerNumbering } from "../ledger/issuer/issuer-rpc.ts";
import * as numbering from "../ledger/issuer/receipt-numbering.ts";
import { refusalsAsData, type LedgerResult } from "../ledger/refusal.ts";
import type { Sequence } from "../ledger/rows.ts";

export class NumberingFacet extends RpcTarget implements IssuerNumbering {
  constructor(
    private readonly db: IssuerDb,
    private readonly keys: IdempotencyKeys,
    /** API receipts' numberings, committed in groups. */
    private readonly numberings: CommitGroup<numbering.NumberRequest, numbering.NumberAnswer>,
    /** What the certificate watch reads and changes of the object. */
    private readonly certificates: CertificateWatchHost,
  ) {
    super();
  }

  sequences(): Sequence[] {
    return numbering.sequencesOf(this.db);
  }
  putSequence(tipoeCF: string, range: { rangeFrom: number; rangeTo: number; expiresOn: string }) {
    return refusalsAsData(() => numbering.putSequence(this.db, tipoeCF, range));
  }
  checkIssue(tipoeCF: string | null, idempotency: IdempotencyRequest | null): LedgerResult<numbering.IssueCheck> {
    return refusalsAsData(() => numbering.issueCheck(this.db, this.keys, tipoeCF, idempotency));
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
  watchCertificate(companyId: string, certificate: { serial: string; notAfter: string }, now: string) {
    return watchCertificate(this.certificates, companyId, certificate, new Date(now));
  }
  invoicesIn(month: string): number {
    return invoicesIn(this.db, month);
  }
  releaseIdempotencyKey(key: string, encf: string): void {
    this.keys.release(key, encf);
  }
}
