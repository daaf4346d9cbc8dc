// When to sync: at start, when the network returns, after each sale or shift change and on an
// interval; always under the Web Lock so only one tab uploads. Each round also hands over the
// shifts opened or closed since (sync/shifts.ts), refills e-NCF blocks running low, has the numbers
// this till gave up voided (sync/given-up.ts) and notes a changed certificate.
import { drIsoDate } from "@ecf/shared/dgii-time";
import { POS_TIPOS } from "@ecf/shared/pos-device";
import { DeviceApi, type DeviceStatus, isRevoked } from "../api.ts";
import type { PosDatabase } from "../db.ts";
import { recoverLostNumbers, refillLeases } from "../leases.ts";
import { API_BASE, forgetDevice, forgetSettledTokens, type Session } from "../session.ts";
import { installWrappedKey, keyIsOutdated, signingKey } from "../signing/keystore.ts";
import { capacitySettings, stockNeeded } from "../offline-capacity.ts";
import { type ShiftSyncReport, syncShifts } from "./shifts.ts";
import { type ApiOfPairing, pairingApis } from "./pairing-apis.ts";
import { refreshInProcess } from "./refresh.ts";
import { syncGivenUp } from "./given-up.ts";
import { syncLockFree, syncOutbox, underSyncLock, type SyncProgress, type SyncReport } from "./outbox.ts";

export const SYNC_INTERVAL_MS = 30_000;
/**
 * After a round whose uploads were answered En Proceso (a backlog the server sends to DGII in the
 * background), one more round this soon shows DGII's verdicts without waiting for the interval.
 */
export const SETTLE_RECHECK_MS = 4_000;
/**
 * While the server cannot be reached, the next try comes this soon (doubling up to the interval),
 * so the backlog goes as soon as the server answers again rather than at the next interval.
 */
export const UNREACHABLE_RETRY_MS = 3_000;

export interface SyncStatus {
  running: boolean;
  progress?: SyncProgress;
  last?: SyncReport;
  error?: string;
  /**
   * The till has no usable signing key (the issuer's certificate changed, or the key was lost with
   * the browser's storage): it needs a one-time code to receive the key again.
   */
  keyOutdated?: boolean;
  /** The round could not reach the server (a failed request, not an answer): the till is on its own. */
  unreachable?: boolean;
  /** The shifts the round handed over, refused, or had to leave for the next one. */
  shifts?: ShiftSyncReport;
}

/**
 * What a sync round needs from the server (DeviceApi; a test may hand its own). Of the check-in
 * only the current certificate matters here, so a new field in /devices/me changes nothing.
 */
export type RunnerApi = Pick<
  DeviceApi,
  "signingMaterial" | "lease" | "receiptStates" | "uploadMany" | "voidGivenUp" | "putShift"
> & {
  me(): Promise<Pick<DeviceStatus, "certificateSerial"> & { device?: Pick<DeviceStatus["device"], "keyApproval"> }>;
};

export class SyncRunner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private recheck: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private retryDelay: number;
  private pending: Promise<unknown> | undefined;
  /** A kick that came during a round (a sale rung meanwhile): one more round right after it. */
  private kickedMeanwhile = false;
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
    private readonly retryMs = UNREACHABLE_RETRY_MS,
  ) {
    this.api = connect(session.token);
    this.retryDelay = retryMs;
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
    clearTimeout(this.retry);
  }

  /**
   * Starts a round; during one, asks for another right after it (what was queued meanwhile goes
   * then, not at the next interval). Nothing once the runner was stopped.
   */
  readonly kick = (): void => {
    if (this.stopped) return;
    if (this.pending) {
      this.kickedMeanwhile = true;
      return;
    }
    this.kickedMeanwhile = false;
    this.pending = this.run().finally(() => {
      this.pending = undefined;
      if (this.kickedMeanwhile) this.kick();
    });
  };

  /** After a round: tries again soon while the server is unreachable, back to the interval once it answers. */
  private reachable(reached: boolean): void {
    clearTimeout(this.retry);
    if (reached) {
      this.retryDelay = this.retryMs;
      return;
    }
    if (this.stopped || this.retryDelay >= this.intervalMs) return;
    this.retry = setTimeout(this.kick, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, this.intervalMs);
  }

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
        const apiFor = await pairingApis(this.db, this.session, this.api, this.connect);
        const report = await this.upload(apiFor);
        let shifts: ShiftSyncReport | undefined;
        if (report.stoppedBy === "revoked") await this.revoked();
        else {
          // A shift closed since the last round reaches the server in this one.
          shifts = await syncShifts(this.db, (shift, body) => apiFor(shift.deviceId).putShift(shift.id, body));
          const refreshed = await refreshInProcess(this.db, (encfs) => this.api.receiptStates(encfs)).catch(() => ({
            changed: 0,
            unsettled: 0,
          }));
          // Numbers given up on this till are voided (ANECF); a failure leaves them for the next round.
          await syncGivenUp(this.db, (numbers) => this.api.voidGivenUp(numbers)).catch(() => {});
          if (report.unsettled > 0 && refreshed.unsettled > 0 && this.recheckMs < this.intervalMs) {
            clearTimeout(this.recheck);
            this.recheck = setTimeout(this.kick, this.recheckMs);
          }
        }
        const unreachable = report.stoppedBy === "retry" || shifts?.retryLater !== undefined;
        this.reachable(!unreachable);
        this.onStatus({
          running: false,
          last: report,
          ...(shifts ? { shifts } : {}),
          ...(unreachable ? { unreachable } : {}),
          ...(this.keyOutdated ? { keyOutdated: true } : {}),
        });
        return report;
      } catch (error) {
        if (isRevoked(error)) {
          await this.revoked();
          return undefined;
        }
        this.reachable(false);
        this.onStatus({
          running: false,
          error: error instanceof Error ? error.message : String(error),
          unreachable: true,
        });
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

  /** Uploads the outbox in order, each receipt with the token of the pairing that signed it. */
  private async upload(apiFor: ApiOfPairing<RunnerApi>): Promise<SyncReport> {
    // A batch holds one pairing's receipts (see batches), so its first entry names the token.
    const report = await syncOutbox(
      this.db,
      (batch) => apiFor(batch[0]!.deviceId).uploadMany(batch),
      (progress) => this.onStatus({ running: true, progress }),
    );
    await forgetSettledTokens(this.db);
    return report;
  }

  /** No usable key (seen at the last round): none at all, or one of a certificate the issuer replaced. */
  keyOutdated = false;

  /**
   * New blocks when half used; notes a changed certificate or a lost key. The new key is not fetched
   * here: the server gives it only against a one-time code someone at the issuer asked for (installNewKey).
   */
  private async housekeeping(): Promise<void> {
    await recoverLostNumbers(this.db);
    const me = await this.api.me();
    let key = await signingKey(this.db);
    // A till a manager registered gets the key once an owner approved it, without a code.
    if (!key && me.device?.keyApproval === "granted")
      key = await installWrappedKey(this.db, await this.api.signingMaterial()).catch(() => undefined);
    this.keyOutdated = await keyIsOutdated(key, me);
    if (this.keyOutdated) this.onStatus({ running: true, keyOutdated: true });
    const now = new Date();
    const capacity = await capacitySettings(this.db);
    for (const tipo of POS_TIPOS) {
      const needed = (t: string) => stockNeeded(this.db, t, now, capacity);
      await refillLeases(this.db, [tipo], (t, size) => this.api.lease(t, size), drIsoDate(now), needed).catch(() => {});
    }
  }

  /** The new key, against the code typed at the till; imported non-extractable (signing/keystore.ts). */
  async installNewKey(pairingCode: string): Promise<void> {
    await installWrappedKey(this.db, await this.api.signingMaterial(pairingCode));
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
    const flushed = await pairingApis(this.db, this.session, this.api, this.connect)
      .then((apiFor) => this.upload(apiFor))
      .catch(() => undefined);
    this.onStatus({ running: false, ...(flushed ? { last: flushed } : {}) });
    this.onRevoked();
  }
}
