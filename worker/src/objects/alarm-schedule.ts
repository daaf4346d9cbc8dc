// A Durable Object's single alarm, set for the earliest thing due (the database knows it; the
// alarm is one time). Kept in memory: when the alarm is set for, and when the run in progress
// started, so that a burst of changes costs one storage write, not one per change.
export class AlarmSchedule {
  /** When the alarm is set for, as far as this instance set it (null: none pending). */
  private alarmAt: number | null = null;
  /** When the alarm run in progress started (null: none runs); the alarm it fired for was due by then. */
  private runStartedAt: number | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** The earliest instant anything is due (epoch ms), or null. */
    private readonly nextDueAt: () => number | null,
  ) {}

  /**
   * Sets the alarm for the earliest due thing. `dueFrom`: nothing the caller's change made due is
   * due before then, so an alarm set for then or earlier already covers it (it reschedules when
   * it is done) and the database need not be asked.
   */
  schedule(dueFrom?: number): void {
    if (dueFrom !== undefined && this.alarmAt !== null && this.alarmAt <= dueFrom) return;
    const earliest = this.nextDueAt();
    if (earliest === null) return;
    const at = Math.max(earliest, Date.now());
    // An alarm that runs by then stays as it is: it reschedules when it is done. Moving it on every
    // change (each move a storage write of its own) costs more than a run that finds nothing due.
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.setAt(at).catch((error: unknown) => console.error("setAlarm failed", error));
  }

  async setAt(due: number): Promise<void> {
    // While a run is in progress, the runtime still holds the alarm it fired for, and deletes it
    // when the run ends unless the alarm was changed. Setting it again to the very time it fired
    // for (a clock that stood still since: a run with nothing to do) changes nothing, so the next
    // alarm would be lost with it: until a run ends, the next one is strictly after its start.
    const at = this.runStartedAt === null ? due : Math.max(due, this.runStartedAt + 1);
    this.alarmAt = at;
    try {
      await this.storage.setAlarm(at);
    } catch (error) {
      if (this.alarmAt === at) this.alarmAt = null;
      throw error;
    }
  }

  /** Runs the alarm's work: the alarm that fired is no longer pending while it runs. */
  async run(now: Date, work: (now: Date) => Promise<void>): Promise<void> {
    this.alarmAt = null;
    this.runStartedAt = now.getTime();
    try {
      await work(now);
    } finally {
      this.runStartedAt = null;
    }
  }
}
