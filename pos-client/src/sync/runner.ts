// When to sync: at start, when the network returns, after each sale and on an interval; always
// under the Web Lock so only one tab uploads. Each round also refills e-NCF blocks running low and
// replaces the signing key when the issuer's certificate changed.
import { ApiError, DeviceApi } from "../api.ts";
import type { PosDatabase } from "../db.ts";
import { refillLeases } from "../leases.ts";
import { drToday } from "../sale/issue.ts";
import { API_BASE, forgetDevice, type Session } from "../session.ts";
import { installSigningKey, signingKey } from "../signing/keystore.ts";
import { refreshInProcess } from "./refresh.ts";
import { syncOutbox, underSyncLock, type SyncProgress, type SyncReport } from "./outbox.ts";

export const SYNC_INTERVAL_MS = 30_000;
const TIPOS = ["32", "31", "34"] as const;

export interface SyncStatus {
  running: boolean;
  progress?: SyncProgress;
  last?: SyncReport;
  error?: string;
}

export class SyncRunner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private pending: Promise<unknown> | undefined;
  readonly api: DeviceApi;

  constructor(
    private readonly db: PosDatabase,
    session: Session,
    private readonly onStatus: (status: SyncStatus) => void,
    private readonly onRevoked: () => void,
  ) {
    this.api = new DeviceApi(API_BASE, session.token);
  }

  start(): void {
    addEventListener("online", this.kick);
    this.timer = setInterval(this.kick, SYNC_INTERVAL_MS);
    this.kick();
  }

  stop(): void {
    removeEventListener("online", this.kick);
    clearInterval(this.timer);
  }

  /** Starts a round unless one is already running in this tab. */
  readonly kick = (): void => {
    if (!this.pending) this.pending = this.run().finally(() => (this.pending = undefined));
  };

  async run(): Promise<SyncReport | "busy" | undefined> {
    if (typeof navigator !== "undefined" && navigator.onLine === false) {
      // Nothing to send now, but the count of receipts waiting changed (a sale in contingency).
      this.onStatus({ running: false });
      return undefined;
    }
    const result = await underSyncLock(async () => {
      this.onStatus({ running: true });
      try {
        await this.housekeeping();
        const report = await syncOutbox(this.db, (e) => this.api.upload(e), (progress) => this.onStatus({ running: true, progress }));
        if (report.stoppedBy === "revoked") await this.revoked();
        else await refreshInProcess(this.db, (encf) => this.api.receiptState(encf)).catch(() => 0);
        this.onStatus({ running: false, last: report });
        return report;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401 && error.body.deviceRevoked) {
          await this.revoked();
          return undefined;
        }
        this.onStatus({ running: false, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    });
    return result;
  }

  /** New blocks when half used, and the current certificate's key. Failures wait for next round. */
  private async housekeeping(): Promise<void> {
    const me = await this.api.me();
    const key = await signingKey(this.db);
    if (key && me.certificateSerial !== key.certificateSerial) await installSigningKey(this.db, await this.api.signingMaterial());
    for (const tipo of TIPOS) {
      await refillLeases(this.db, [tipo], (t, size) => this.api.lease(t, size), drToday(new Date())).catch(() => {});
    }
  }

  private async revoked(): Promise<void> {
    await forgetDevice(this.db);
    this.stop();
    this.onRevoked();
  }
}
