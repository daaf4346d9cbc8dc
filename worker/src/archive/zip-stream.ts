// A zip written as a stream (PKWARE APPNOTE 6.3.10), for archives larger than a Worker's memory:
// entries are stored (method 0, no compression: the XML and PDF are small and the CPU is better
// spent elsewhere), each entry's bytes pass through as they are read with its CRC-32 computed on
// the way, and its CRC and sizes follow it in a data descriptor (flag bit 3), so nothing is ever
// buffered. Only the central directory (about 50 bytes plus the name per entry) is kept until the
// end, in memory or spilled to R2 (zip-directory.ts). ZIP64 records are written when the archive needs them (65,535 entries or more, or offsets
// past 4 GiB); `forceZip64` writes them always, which is how the tests exercise them. A single
// entry must stay under 4 GiB (archived documents are kilobytes).

import { CentralDirectory } from "./zip-directory.ts";

export interface ZipEntry {
  /** The path inside the zip (UTF-8, "/" separated). */
  name: string;
  /** Shown as the entry's time (MS-DOS time has no zone: Santo Domingo time is written). */
  modified: Date;
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array;
}

export interface ZipOptions {
  forceZip64?: boolean;
  /** Where the central directory is kept (default: in memory); give one spilling to R2 for a large archive. */
  directory?: CentralDirectory;
  /** From how many entries, and from which offset, ZIP64 records are written (tests lower them). */
  zip64Entries?: number;
  zip64Offset?: number;
}

// --------------------------------------------------------------------------------- CRC-32

/** CRC-32 (IEEE 802.3, reflected 0xEDB88320), slicing by 8 bytes. */
const CRC_TABLES = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[0]![n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[0]![n]!;
    for (let t = 1; t < 8; t++) {
      c = tables[0]![c & 0xff]! ^ (c >>> 8);
      tables[t]![n] = c >>> 0;
    }
  }
  return tables;
})();

/** Continues a CRC-32 over more bytes (start with 0). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC_TABLES as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  let c = ~crc >>> 0;
  let i = 0;
  const end8 = bytes.length - (bytes.length % 8);
  for (; i < end8; i += 8) {
    const a = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c =
      t7[a & 0xff]! ^
      t6[(a >>> 8) & 0xff]! ^
      t5[(a >>> 16) & 0xff]! ^
      t4[a >>> 24]! ^
      t3[bytes[i + 4]!]! ^
      t2[bytes[i + 5]!]! ^
      t1[bytes[i + 6]!]! ^
      t0[bytes[i + 7]!]!;
  }
  for (; i < bytes.length; i++) c = t0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

// ------------------------------------------------------------------------------- records

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
/** Bit 3: CRC and sizes in a data descriptor; bit 11: names are UTF-8. */
const FLAGS = 0x0808;
/** Made by: Unix (3), spec 4.5 (ZIP64). */
const MADE_BY = (3 << 8) | 45;
/** -rw-r--r-- regular file, in the high half of the external attributes (Unix). */
const FILE_MODE = (0o100644 << 16) >>> 0;

class Writer {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private at = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  u16(v: number) {
    this.view.setUint16(this.at, v, true);
    this.at += 2;
    return this;
  }
  u32(v: number) {
    this.view.setUint32(this.at, v >>> 0, true);
    this.at += 4;
    return this;
  }
  u64(v: number) {
    this.view.setBigUint64(this.at, BigInt(v), true);
    this.at += 8;
    return this;
  }
  raw(b: Uint8Array) {
    this.bytes.set(b, this.at);
    this.at += b.length;
    return this;
  }
}

/** MS-DOS date and time of an instant in Santo Domingo (UTC−4, no daylight saving). */
function dosDateTime(instant: Date): { date: number; time: number } {
  const local = new Date(instant.getTime() - 4 * 3_600_000);
  const year = Math.min(Math.max(local.getUTCFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((local.getUTCMonth() + 1) << 5) | local.getUTCDate(),
    time: (local.getUTCHours() << 11) | (local.getUTCMinutes() << 5) | (local.getUTCSeconds() >> 1),
  };
}

async function* bytesOf(body: ZipEntry["body"]): AsyncGenerator<Uint8Array> {
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  if (body instanceof ReadableStream) {
    const reader = body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (value.length) yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  yield* body;
}

/**
 * The zip's bytes, a chunk at a time, from entries given one at a time: nothing is read from an
 * entry before the consumer asks for the next chunk.
 */
export async function* zipChunks(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  options: ZipOptions = {},
): AsyncGenerator<Uint8Array> {
  const central = options.directory ?? new CentralDirectory();
  try {
    const offset = yield* entriesOf(entries, central, options);
    yield* centralDirectoryAndEnd(central, offset, options);
  } finally {
    await central.discard();
  }
}

/** The entries' local headers, bytes and descriptors; returns the offset where the directory goes. */
async function* entriesOf(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  central: CentralDirectory,
  options: ZipOptions,
): AsyncGenerator<Uint8Array, number> {
  const encoder = new TextEncoder();
  const zip64Offset = options.zip64Offset ?? MAX32;
  let offset = 0;
  for await (const entry of entries) {
    const name = encoder.encode(entry.name);
    const { date, time } = dosDateTime(entry.modified);
    const headerOffset = offset;
    const header = localHeader(name, time, date);
    yield header;
    offset += header.length;

    let crc = 0;
    let size = 0;
    for await (const chunk of bytesOf(entry.body)) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
    }
    if (size >= MAX32) throw new Error(`zip entry ${entry.name} is 4 GiB or larger`);
    offset += size;
    const descriptor = new Writer(16).u32(DATA_DESCRIPTOR).u32(crc).u32(size).u32(size);
    yield descriptor.bytes;
    offset += descriptor.bytes.length;

    const zip64 = options.forceZip64 || headerOffset >= zip64Offset;
    await central.append(centralHeader(name, { time, date, crc, size, headerOffset, zip64 }));
  }
  return offset;
}

/** An entry's local header; its CRC and sizes follow its bytes, in the data descriptor. */
function localHeader(name: Uint8Array, time: number, date: number): Uint8Array {
  return new Writer(30 + name.length)
    .u32(LOCAL_HEADER)
    .u16(20) // version needed: 2.0 (the ZIP64 fields, when any, are in the central directory only)
    .u16(FLAGS)
    .u16(0) // stored
    .u16(time)
    .u16(date)
    .u32(0) // CRC and sizes: in the data descriptor
    .u32(0)
    .u32(0)
    .u16(name.length)
    .u16(0)
    .raw(name).bytes;
}

/** An entry's central directory record; with ZIP64, its local header's offset is in the extra field. */
function centralHeader(
  name: Uint8Array,
  e: { time: number; date: number; crc: number; size: number; headerOffset: number; zip64: boolean | undefined },
): Uint8Array {
  const extra = e.zip64 ? new Writer(12).u16(0x0001).u16(8).u64(e.headerOffset).bytes : new Uint8Array(0);
  return new Writer(46 + name.length + extra.length)
    .u32(CENTRAL_HEADER)
    .u16(MADE_BY)
    .u16(e.zip64 ? 45 : 20)
    .u16(FLAGS)
    .u16(0)
    .u16(e.time)
    .u16(e.date)
    .u32(e.crc)
    .u32(e.size)
    .u32(e.size)
    .u16(name.length)
    .u16(extra.length)
    .u16(0) // comment
    .u16(0) // disk
    .u16(0) // internal attributes
    .u32(FILE_MODE)
    .u32(e.zip64 ? MAX32 : e.headerOffset)
    .raw(name)
    .raw(extra).bytes;
}

/** The central directory, then the end records (ZIP64 ones first when the archive needs them). */
async function* centralDirectoryAndEnd(
  central: CentralDirectory,
  centralOffset: number,
  options: ZipOptions,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of central.chunks()) yield chunk;
  const centralSize = central.length;
  const count = central.count;
  const zip64Offset = options.zip64Offset ?? MAX32;
  const zip64 =
    options.forceZip64 ||
    count >= (options.zip64Entries ?? MAX16) ||
    centralOffset >= zip64Offset ||
    centralSize >= MAX32;
  if (zip64) {
    const endOffset = centralOffset + centralSize;
    yield new Writer(56)
      .u32(ZIP64_END)
      .u64(44) // size of the rest of this record
      .u16(MADE_BY)
      .u16(45)
      .u32(0)
      .u32(0)
      .u64(count)
      .u64(count)
      .u64(centralSize)
      .u64(centralOffset).bytes;
    yield new Writer(20).u32(ZIP64_LOCATOR).u32(0).u64(endOffset).u32(1).bytes;
  }
  yield new Writer(22)
    .u32(END)
    .u16(0)
    .u16(0)
    .u16(zip64 ? MAX16 : count)
    .u16(zip64 ? MAX16 : count)
    .u32(zip64 ? MAX32 : centralSize)
    .u32(zip64 ? MAX32 : centralOffset)
    .u16(0).bytes;
}

/**
 * The chunks as a response body. Pull-based: the next chunk is made only when the reader asks
 * for it, so a slow client slows the reading from R2 instead of filling memory.
 */
export function chunksToStream(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await chunks.return(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

export function zipStream(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  options: ZipOptions = {},
): ReadableStream<Uint8Array> {
  return chunksToStream(zipChunks(entries, options));
}
