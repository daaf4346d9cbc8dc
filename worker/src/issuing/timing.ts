/**
 * Wall time per phase of one issuing request, sent back as a Server-Timing header so a client
 * (the issuing bench) can tell storage from transport without instrumenting the worker. Only
 * phases that wait on I/O are timed: workerd's clock does not advance during pure computation,
 * so validation and signing would read as zero here.
 */
export class PhaseTimes {
  private readonly totals = new Map<string, number>();

  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.add(phase, performance.now() - start);
    }
  }

  add(phase: string, ms: number): void {
    this.totals.set(phase, (this.totals.get(phase) ?? 0) + ms);
  }

  /** `storage;dur=12.0, transmit;dur=340.5, …` (RFC: Server-Timing, durations in ms). */
  header(): string {
    return [...this.totals].map(([phase, ms]) => `${phase};dur=${ms.toFixed(1)}`).join(", ");
  }
}
