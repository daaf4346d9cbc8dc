// The streaming zip writer (src/archive/zip-stream.ts) against independent readers: Node's zlib
// CRC-32, Info-ZIP's unzip (-t tests every entry's CRC, -Z lists the central directory, -p prints
// an entry), on archives a month can make: many entries (ZIP64 from 65,535 on), empty entries,
// entries fed in small and odd-sized chunks, UTF-8 names.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 as zlibCrc32 } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { CentralDirectory, type DirectorySpill } from "../src/archive/zip-directory.ts";
import { crc32, zipChunks, zipStream, type ZipEntry } from "../src/archive/zip-stream.ts";

execFileSync(process.execPath, [new URL("../../scripts/require-tools.mjs", import.meta.url).pathname, "unzip"], {
  stdio: "inherit",
});

const dir = mkdtempSync(join(tmpdir(), "ecf-zip-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function zipFile(
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  name: string,
  options = {},
): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of zipChunks(entries, options)) parts.push(chunk);
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

const unzip = (...args: string[]) => execFileSync("unzip", args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });

async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe("crc32", () => {
  it("matches zlib's on random data of every length up to 64, and on 1 MiB continued in odd pieces", () => {
    for (let n = 0; n <= 64; n++) {
      const bytes = randomBytes(n);
      expect(crc32(bytes), `length ${n}`).toBe(zlibCrc32(bytes));
    }
    const big = randomBytes(1 << 20);
    let crc = 0;
    for (let i = 0; i < big.length; i += 4099) crc = crc32(big.subarray(i, i + 4099), crc);
    expect(crc).toBe(zlibCrc32(big));
  });
});

describe("zipChunks", () => {
  it("writes stored entries with data descriptors that unzip -t accepts, byte for byte", async () => {
    const bodies = [
      randomBytes(100_000),
      new Uint8Array(0),
      new TextEncoder().encode("<ECF>Peña & Café</ECF>"),
      randomBytes(7),
    ];
    const names = ["emitidos/E310000000001.xml", "vacío.txt", "recibidos/130862346E310000000002.xml", "indice.csv"];
    const when = new Date("2026-05-31T23:59:58Z");
    const path = await zipFile(
      names.map((name, i) => ({ name, modified: when, body: i === 0 ? inPieces(bodies[0]!, 999) : bodies[i]! })),
      "small.zip",
    );
    expect(unzip("-tq", path)).toMatch(/No errors detected/);
    expect(unzip("-Z1", path).trim().split("\n")).toEqual(names);
    for (const [i, name] of names.entries())
      expect(Buffer.compare(execFileSync("unzip", ["-p", path, name]), Buffer.from(bodies[i]!)), name).toBe(0);
    // MS-DOS time in Santo Domingo (UTC−4), two-second resolution.
    expect(unzip("-Z", "-T", path)).toContain("20260531.195958");
  });

  it("goes ZIP64 past 65,535 entries and unzip reads every one", async () => {
    const count = 70_000;
    function* many(): Generator<ZipEntry> {
      for (let i = 0; i < count; i++)
        yield { name: `f/${i}.xml`, modified: new Date(0), body: new TextEncoder().encode(`<x>${i}</x>`) };
    }
    const path = await zipFile(many(), "many.zip");
    expect(unzip("-tq", path)).toMatch(/No errors detected/);
    const listed = unzip("-Z1", path).trim().split("\n");
    expect(listed).toHaveLength(count);
    expect(listed[count - 1]).toBe(`f/${count - 1}.xml`);
    expect(unzip("-p", path, "f/69999.xml")).toBe("<x>69999</x>");
    // The ZIP64 end of central directory record and its locator are there.
    const tail = execFileSync("tail", ["-c", "98", path]);
    expect(tail.readUInt32LE(0)).toBe(0x06064b50);
    expect(tail.readUInt32LE(56)).toBe(0x07064b50);
  });

  it("with its directory spilled in small segments past 65,535 entries, unzip reads it and the names read back are the zip's", async () => {
    const segments: Uint8Array[] = [];
    let discarded = false;
    const spill: DirectorySpill = {
      write: async (segment) => void segments.push(segment),
      read: async function* () {
        yield* segments;
      },
      discard: async () => void (discarded = true),
    };
    const directory = new CentralDirectory(spill, 8 * 1024);
    const count = 66_000;
    function* many(): Generator<ZipEntry> {
      for (let i = 0; i < count; i++) yield { name: `d/${i}.xml`, modified: new Date(0), body: new Uint8Array(0) };
    }
    const path = await zipFile(many(), "spilled.zip", { directory });
    expect(segments.length).toBeGreaterThan(400);
    expect(discarded).toBe(true);
    expect(unzip("-tq", path)).toMatch(/No errors detected/);
    const listed = unzip("-Z1", path).trim().split("\n");
    expect(listed).toHaveLength(count);
    const names: string[] = [];
    for await (const name of directory.names()) names.push(name);
    expect(names).toEqual(listed);
  });

  it("with ZIP64 forced on a small archive, unzip still reads it", async () => {
    const path = await zipFile(
      [{ name: "a.xml", modified: new Date(), body: new TextEncoder().encode("<a/>") }],
      "forced.zip",
      { forceZip64: true },
    );
    expect(unzip("-tq", path)).toMatch(/No errors detected/);
    expect(unzip("-p", path, "a.xml")).toBe("<a/>");
  });

  it("as a stream, makes nothing before it is read, and stops reading its entries when cancelled", async () => {
    let produced = 0;
    async function* lazy(): AsyncGenerator<ZipEntry> {
      for (let i = 0; ; i++) {
        produced++;
        yield { name: `${i}.bin`, modified: new Date(), body: randomBytes(10_000) };
      }
    }
    const stream = zipStream(lazy());
    await new Promise((r) => setTimeout(r, 20));
    expect(produced).toBe(0);
    const reader = stream.getReader();
    for (let i = 0; i < 10; i++) await reader.read();
    const seen = produced;
    expect(seen).toBeLessThanOrEqual(5);
    await reader.cancel();
    expect(produced).toBe(seen);
  });
});
