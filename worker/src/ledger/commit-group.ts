// Group commit inside a Durable Object: the calls of one kind that reach the object while its
// previous group is being committed run together as the next group, one storage commit for all
// of them. Alone, a call runs at once; under load, a group is what arrived during one commit. An
// object's commit is what bounds one issuer's receipts per second: one per receipt
// before, one per group now. Every call still answers only after its own writes are durable (the
// group's commit), and each runs in a transaction of its own, so one that is refused or fails takes
// back only its own writes. A crash before the commit loses the group's writes, none of them
// answered: what a crash before a lone call's commit did.
import { Refused } from "../errors/refusal.ts";
import type { LedgerResult } from "./refusal.ts";

/** One call's answer from a group: its value or refusal, or why it failed alone. */
type Settled<T> = LedgerResult<T> | { failed: string };

/** The most calls one group runs (each is one receipt's few rows). */
const MAX_GROUP = 100;

export class CommitGroup<I, O> {
  private waiting: { input: I; settle: (answer: Settled<O>) => void }[] = [];
  private committing = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** One call's synchronous work (its writes), refusing with Refused. */
    private readonly work: (input: I) => O,
  ) {}

  /** `input`'s work, committed with its group: its value, or its refusal as data (as `refusalsAsData`). */
  async run(input: I): Promise<LedgerResult<O>> {
    const answer = new Promise<Settled<O>>((settle) => this.waiting.push({ input, settle }));
    if (!this.committing) void this.commitWaiting();
    const settled = await answer;
    if ("failed" in settled) throw new Error(settled.failed);
    return settled;
  }

  /** `input`'s work, committed with its group: its value (a refusal thrown, for work that never refuses). */
  async value(input: I): Promise<O> {
    const answer = await this.run(input);
    if ("refused" in answer) throw new Refused(answer.refused);
    return answer.value;
  }

  /** Groups run and commit one after another until nobody waits. */
  private async commitWaiting(): Promise<void> {
    this.committing = true;
    try {
      while (this.waiting.length) {
        const group = this.waiting.splice(0, MAX_GROUP);
        const answers = group.map(({ input }) => this.apart(input));
        let failed: string | null = null;
        await this.storage.sync().catch((error: unknown) => (failed = `storage commit failed: ${String(error)}`));
        group.forEach(({ settle }, k) => settle(failed === null ? answers[k]! : { failed }));
      }
    } finally {
      this.committing = false;
    }
  }

  /** One call in a transaction of its own: its refusal or failure takes back only its writes. */
  private apart(input: I): Settled<O> {
    try {
      return { value: this.storage.transactionSync(() => this.work(input)) };
    } catch (error) {
      if (error instanceof Refused) return { refused: error.refusal };
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  }
}
