// When to sync: at start, when the network returns, after each sale and on an interval; always
// under the Web Lock so only one tab uploads. Each round also refills e-NCF blocks running low and
// replaces the signing key when the issuer's certificate changed.
import { drIsoDate } from "@ecf/shared/dgii-time";
import { POS_TIPOS } from "@ecf/shared/pos-device";
import { DeviceApi, type DeviceStatus, isRevoked } from "../api.ts";
import type { OutboxEntry, PosDatabase } from "../db.ts";
import { recoverLostNumbers, refillLeases } from "../leases.ts";
import { API_BASE, forgetDevice, forgetSettledTokens, RETIRED_TOKENS, type Session } from "../session.ts";
import { installSigningKey, signingKey } from "../signing/keystore.ts";
import { refreshInProcess } from "./refresh.ts";
import { syncLockFree, syncOutbox, underSyncLock, type SyncProgress, type SyncReport } from "./outbox.ts";

export const SYNC_INTERVAL_MS = 30_000;
/**
 * After a round whose uploads were answered En Proceso (a backlog the server sends to DGII in the
 * background), one more round this soon shows DGII's verdicts without waiting for the interval.
 */
export const SETTLE_RECHECK_MS = 4_000;

export interface SyncStatus {
  running: boolean;
  progress?: SyncProgress;
  last?: SyncReport;
  error?: string;
  /** The issuer's certificate changed: the till needs a one-time code to receive the new key. */
  keyOutdated?: boolean;
}

/**
 * What a sync round needs from the server (DeviceApi; a test may hand its own). Of the check-in
 * only the current certificate matters here, so a new field in /devices/me changes nothing.
 */
export type RunnerApi = Pick<DeviceApi, "signingMaterial" | "lease" | "receiptStates" | "uploadMany"> & { me(): Promise<Pick<DeviceStatus, "certificateSerial">> };

export class SyncRunner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private recheck: ReturnType<typeof setTimeout> | undefined;
  private pending: Promise<unknown> | undefined;
  private stopped = false;
  readonly api: RunnerApi;

  constructor(
    private readonly db: PosDatabase,
    private readonly session: Session,
    private readonly onStatus: (status: SyncStatus) => void,
    private readonly onRevoked: () => void,
    private readonly connect: (token: string) => RunnerApi = (token) => new DeviceApi(API_BASE, token),
    private readonly intervalMs = SYNC_INTERVAL_MS,
    private readonly recheckMs = SETTLE_RECHECK_MS,
  ) {
    this.api = connect(session.token);
  }

  start(): void {
    this.stopped = false;
    addEventListener("online", this.kick);
    this.timer = setInterval(this.kick, this.intervalMs);
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    removeEventListener("online", this.kick);
    clearInterval(this.timer);
    clearTimeout(this.recheck);
  }

  /** Starts a round unless one is already running in this tab (or the runner was stopped). */
  readonly kick = (): void => {
    if (!this.pending && !this.stopped) this.pending = this.run().finally(() => (this.pending = undefined));
  };

  /** The round in progress, if any (tests wait for it). */
  get running(): Promise<unknown> | undefined {
    return this.pending;
  }

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
        const report = await this.upload();
        if (report.stoppedBy === "revoked") await this.revoked();
        else {
          const refreshed = await refreshInProcess(this.db, (encfs) => this.api.receiptStates(encfs)).catch(() => ({ changed: 0, unsettled: 0 }));
          if (report.unsettled > 0 && refreshed.unsettled > 0 && this.recheckMs < this.intervalMs) {
            clearTimeout(this.recheck);
            this.recheck = setTimeout(this.kick, this.recheckMs);
          }
        }
        this.onStatus({ running: false, last: report, ...(this.keyOutdated ? { keyOutdated: true } : {}) });
        return report;
      } catch (error) {
        if (isRevoked(error)) {
          await this.revoked();
          return undefined;
        }
        this.onStatus({ running: false, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    });
    // Another tab is syncing: once it is done, this tab shows what is left (it shares the outbox).
    if (result === "busy") {
      await syncLockFree();
      this.onStatus({ running: false });
    }
    return result;
  }

  /**
   * Uploads the outbox in order. An entry signed under an earlier pairing of this till goes up with
   * that pairing's token (kept when it was revoked): the server takes from a revoked device what it
   * signed before the revocation, inside its own leases.
   */
  private async upload(): Promise<SyncReport> {
    const retired = (await this.db.setting<Record<string, string>>(RETIRED_TOKENS)) ?? {};
    const apis = new Map<string, RunnerApi>();
    const apiFor = (entry: OutboxEntry): RunnerApi => {
      const token = entry.deviceId && entry.deviceId !== this.session.deviceId ? retired[entry.deviceId] : undefined;
      if (!token) return this.api;
      if (!apis.has(token)) apis.set(token, this.connect(token));
      return apis.get(token)!;
    };
    // A batch holds one pairing's receipts (see batches), so its first entry names the token.
    const report = await syncOutbox(
      this.db,
      (batch) => apiFor(batch[0]!).uploadMany(batch),
      (progress) => this.onStatus({ running: true, progress }),
    );
    await forgetSettledTokens(this.db);
    return report;
  }

  /** The issuer's certificate is not the one this till's key belongs to (seen at the last round). */
  keyOutdated = false;

  /**
   * New blocks when half used; notes a changed certificate. The new key is not fetched here: the
   * server gives it only against a one-time code someone at the issuer asked for (installNewKey).
   */
  private async housekeeping(): Promise<void> {
    await recoverLostNumbers(this.db);
    const me = await this.api.me();
    const key = await signingKey(this.db);
    this.keyOutdated = !!key && me.certificateSerial !== key.certificateSerial;
    if (this.keyOutdated) this.onStatus({ running: true, keyOutdated: true });
    for (const tipo of POS_TIPOS) {
      await refillLeases(this.db, [tipo], (t, size) => this.api.lease(t, size), drIsoDate(new Date())).catch(() => {});
    }
  }

  /** The new key, against the code typed at the till; imported non-extractable (signing/keystore.ts). */
  async installNewKey(pairingCode: string): Promise<void> {
    await installSigningKey(this.db, await this.api.signingMaterial(pairingCode));
    this.keyOutdated = false;
  }

  /**
   * Revoked: the key goes at once (no receipt can be signed any more); then what was already
   * signed is handed over with the revoked token, which the server still accepts for receipts
   * signed before the revocation. Whatever cannot go now goes at a later round, after pairing
   * again, with the kept token.
   */
  private async revoked(): Promise<void> {
    this.stop();
    await forgetDevice(this.db, this.session);
    const flushed = await this.upload().catch(() => undefined);
    this.onStatus({ running: false, ...(flushed ? { last: flushed } : {}) });
    this.onRevoked();
  }
}
