// A zip's central directory while the zip is being written: its encoded records (about 50 bytes
// plus the name each) in a small buffer that is spilled to storage (R2) a segment at a time once
// it fills, so a month of 3,000,000 entries (≈ 300 MB of records) never sits in the Worker's
// memory. Read back in order when the zip ends, and name by name for the month's index.

/** Where the full segments go, and come back from, in the order written. */
export interface DirectorySpill {
  write(segment: Uint8Array): Promise<void>;
  read(): AsyncIterable<Uint8Array>;
  /** Removes what was written (the zip ended, or was abandoned). */
  discard(): Promise<void>;
}

/** Bytes of records held before a segment is spilled (a test lowers it). */
export const SPILL_BYTES = 1 << 20;

export class CentralDirectory {
  private buffer: Uint8Array;
  private held = 0;
  private spilled = 0;
  /** Total bytes of records, spilled and held. */
  length = 0;
  count = 0;
  private readonly spill: DirectorySpill | undefined;
  private readonly spillBytes: number;

  constructor(spill?: DirectorySpill, spillBytes = SPILL_BYTES) {
    this.spill = spill;
    this.spillBytes = spillBytes;
    this.buffer = new Uint8Array(spill ? spillBytes : 64 * 1024);
  }

  async append(record: Uint8Array): Promise<void> {
    if (this.spill && this.held + record.length > this.spillBytes && this.held > 0) {
      await this.spill.write(this.buffer.slice(0, this.held));
      this.spilled++;
      this.held = 0;
    }
    if (this.held + record.length > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.held + record.length));
      grown.set(this.buffer.subarray(0, this.held));
      this.buffer = grown;
    }
    this.buffer.set(record, this.held);
    this.held += record.length;
    this.length += record.length;
    this.count++;
  }

  /** The records so far, in order: the spilled segments, then the held ones a slice at a time. */
  async *chunks(size = 64 * 1024): AsyncGenerator<Uint8Array> {
    if (this.spilled && this.spill) yield* this.spill.read();
    for (let i = 0; i < this.held; i += size) yield this.buffer.slice(i, Math.min(i + size, this.held));
  }

  /** The entries' names so far, in the zip's order (read back from the records). */
  async *names(): AsyncGenerator<string> {
    const decoder = new TextDecoder();
    let carry = new Uint8Array(0);
    for await (const chunk of this.chunks()) {
      const bytes = carry.length ? concat(carry, chunk) : chunk;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let at = 0;
      // A record: 46 fixed bytes (name, extra and comment lengths at 28, 30, 32), then those.
      while (at + 46 <= bytes.length) {
        const nameLength = view.getUint16(at + 28, true);
        const end = at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
        if (end > bytes.length) break;
        yield decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
        at = end;
      }
      carry = bytes.slice(at);
    }
  }

  async discard(): Promise<void> {
    if (this.spilled) await this.spill?.discard();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** What the spill needs of an R2 bucket. */
interface SpillBucket {
  put(key: string, value: Uint8Array): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  delete(keys: string[]): Promise<void>;
}

/** Segments as R2 objects under a prefix of their own, listed back in order and deleted at the end. */
export function r2DirectorySpill(bucket: SpillBucket, prefix: string): DirectorySpill {
  let written = 0;
  const keyOf = (n: number) => `${prefix}${String(n).padStart(8, "0")}`;
  return {
    async write(segment) {
      await bucket.put(keyOf(written), segment);
      written++;
    },
    async *read() {
      for (let n = 0; n < written; n++) {
        const object = await bucket.get(keyOf(n));
        if (!object) throw new Error(`zip directory segment ${keyOf(n)} is gone`);
        yield new Uint8Array(await object.arrayBuffer());
      }
    },
    async discard() {
      const keys = Array.from({ length: written }, (_, n) => keyOf(n));
      for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
    },
  };
}
