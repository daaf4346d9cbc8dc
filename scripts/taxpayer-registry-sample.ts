// A taxpayer registry in DGII's own format, for tests and benchmarks (and anyone who needs a
// registry on a local stack): DGII_RNC.zip holding TMP/DGII_RNC.TXT, deflated, ISO-8859-1, CRLF,
// 11 "|"-separated fields (layout: scripts/taxpayers-import.mjs). Taxpayer i is a pure function of
// i (`sampleTaxpayer`), so a test can check any row without keeping the file's rows in memory, and
// the zip is written as a stream: half a million rows take a few MB of memory.
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeflateRaw, crc32 } from "node:zlib";
import { importTaxpayerRegistry, type AdminApi, type ImportSummary } from "./taxpayers-import.mjs";

/** What a lookup of the taxpayer should answer (the worker's fields). */
export interface SampleTaxpayer {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  activity: string | null;
  status: string;
  paymentRegime: string | null;
  registeredOn: string | null;
}

/** Lines that are not a clean taxpayer, as DGII's real file has a few. */
export type OddLine =
  /** A name with a line break inside: the record's tail starts a line without an RNC (skipped). */
  | "broken-record"
  /** A "|" typed inside the legal name: 12 fields (kept, reported). */
  | "pipe-in-name"
  /** A date that is not dd/mm/yyyy (kept without a date, reported). */
  | "bad-date";

export interface SampleOptions {
  /** Taxpayers in the file (each a line), default 1,000. */
  count?: number;
  /** Odd lines inserted after the given taxpayer index (0-based), each its own line(s). */
  oddLines?: { after: number; kind: OddLine }[];
  /** Changes every name, so a second registry differs from the first (default ""). */
  edition?: string;
}

export interface WrittenSample {
  file: string;
  /** Lines in the text file (CRLF-terminated). */
  lines: number;
  /** Taxpayers a full import stores (the clean ones and the odd ones that keep their RNC). */
  taxpayers: number;
  /** The 1-based line numbers of the odd lines the import must report, with what they are. */
  oddLines: { line: number; kind: OddLine | "record-tail" }[];
  uncompressedBytes: number;
}

const COMPANY_WORDS = [
  "COMERCIAL",
  "INVERSIONES",
  "DISTRIBUIDORA",
  "FERRETERÍA",
  "FARMACIA",
  "COLMADO",
  "PANADERÍA",
  "SERVICIOS",
  "CONSTRUCTORA",
  "TRANSPORTE",
];
const SURNAMES = [
  "PEÑA",
  "MUÑOZ",
  "NÚÑEZ",
  "GARCÍA",
  "RODRÍGUEZ",
  "PÉREZ",
  "JIMÉNEZ",
  "SÁNCHEZ",
  "MARTÍNEZ",
  "CASTAÑOS",
  "BÁEZ",
  "ORTÍZ",
  "ALMÁNZAR",
];
const GIVEN = ["JOSÉ", "MARÍA", "ÁNGEL", "INÉS", "RAMÓN", "SOFÍA", "JESÚS", "LUCÍA", "ANDRÉS", "MONSERRAT"];
const SUFFIXES = ["SRL", "SAS", "EIRL", "SA"];
const ACTIVITIES = [
  "VENTA AL POR MENOR EN COLMADOS",
  "SERVICIOS DE CONSULTORÍA EN INFORMÁTICA",
  "FABRICACIÓN DE PRODUCTOS DE PANADERÍA",
  "VENTA DE PARTES Y PIEZAS",
  "ALQUILER DE VIVIENDAS",
];
const STREETS = ["CALLE EL CONDE", "AV. WINSTON CHURCHILL", "C/ DUARTE", "AV. 27 DE FEBRERO"];
const SECTORS = ["ZONA COLONIAL", "PIANTINI", "LOS MINA", "VILLA JUANA"];

/** Taxpayer i of a sample registry: a company (9-digit RNC) or, every third, a person (cédula). */
export function sampleTaxpayer(i: number, edition = ""): SampleTaxpayer {
  const person = i % 3 === 2;
  const surname = SURNAMES[i % SURNAMES.length]!;
  const legalName = person
    ? `${GIVEN[i % GIVEN.length]} ${surname} ${SURNAMES[(i >> 3) % SURNAMES.length]}${edition}`
    : `${COMPANY_WORDS[i % COMPANY_WORDS.length]} ${surname} & ASOCIADOS ${i} ${SUFFIXES[i % SUFFIXES.length]}${edition}`;
  const year = 1980 + (i % 45);
  return {
    rnc: person ? String(40_200_000_000 + i) : String(101_000_000 + i),
    legalName,
    tradeName:
      person || i % 4 === 1 ? null : `${COMPANY_WORDS[(i + 3) % COMPANY_WORDS.length]} LA ESQUINA DE ÑOÑO ${i}`,
    activity: i % 11 === 10 ? null : ACTIVITIES[i % ACTIVITIES.length]!,
    status: i % 17 === 5 ? "SUSPENDIDO" : i % 23 === 7 ? "DADO DE BAJA" : "ACTIVO",
    paymentRegime: i % 13 === 12 ? null : "NORMAL",
    // Every 19th has DGII's "no date" (00/00/0000).
    registeredOn: i % 19 === 3 ? null : `${year}-${pad((i % 12) + 1)}-${pad((i % 28) + 1)}`,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");
const dgiiDate = (iso: string | null) =>
  iso ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` : "00/00/0000";

/** The line DGII's file holds for a taxpayer (names padded with runs of spaces, as in the real file). */
export function registryLine(t: SampleTaxpayer, i: number): string {
  return [
    t.rnc,
    `${t.legalName.replace(" ", "  ")}`,
    t.tradeName ?? "",
    t.activity ?? "",
    STREETS[i % STREETS.length],
    String(i % 200),
    SECTORS[i % SECTORS.length],
    i % 5 === 0 ? "" : `809${String(5_000_000 + i).slice(-7)}`,
    dgiiDate(t.registeredOn),
    t.status,
    t.paymentRegime ?? "",
  ].join("|");
}

/** The RNC an odd line of the given index uses: outside the clean rows' ranges. */
export const oddRnc = (n: number) => String(131_000_000 + n);

function oddLineText(kind: OddLine, n: number): string[] {
  switch (kind) {
    case "broken-record":
      return [`${oddRnc(n)}|COMERCIAL PARTIDA`, ` EN DOS LÍNEAS SRL||VENTA|CALLE 1|2|CENTRO||01/02/2003|ACTIVO|NORMAL`];
    case "pipe-in-name":
      return [
        `${oddRnc(n)}|FERRETERÍA LA | BARRA SRL||VENTA DE PARTES Y PIEZAS|CALLE 2|3|CENTRO|8095550000|15/06/2010|ACTIVO|NORMAL`,
      ];
    case "bad-date":
      return [`${oddRnc(n)}|PANADERÍA FECHA RARA SRL||PANADERÍA|CALLE 3|4|CENTRO||2010-06-15|ACTIVO|NORMAL`];
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown odd line ${String(unreachable)}`);
    }
  }
}

/**
 * Writes the sample registry zip at `file`. The local header is written first with empty CRC and
 * sizes and filled in at the end (as zip tools writing to a file do), so the zip has no data
 * descriptor, like DGII's.
 */
export async function writeSampleRegistryZip(file: string, options: SampleOptions = {}): Promise<WrittenSample> {
  const count = options.count ?? 1000;
  const edition = options.edition ?? "";
  const odd = [...(options.oddLines ?? [])].sort((a, b) => a.after - b.after);
  const name = Buffer.from("TMP/DGII_RNC.TXT", "latin1");
  const handle = await open(file, "w");
  try {
    const localHeader = Buffer.alloc(30 + name.length);
    localHeader.writeUInt32LE(0x04034b50, 0);
    localHeader.writeUInt16LE(20, 4); // version needed: deflate
    localHeader.writeUInt16LE(8, 8); // method: deflate
    localHeader.writeUInt16LE(0x5a00, 10); // 11:16
    localHeader.writeUInt16LE(0x5b79, 12); // 2025-11-25
    localHeader.writeUInt16LE(name.length, 26);
    name.copy(localHeader, 30);
    await handle.write(localHeader, 0, localHeader.length, 0);

    let position = localHeader.length;
    let crc = 0;
    let uncompressed = 0;
    let lines = 0;
    let taxpayers = 0;
    const oddLines: WrittenSample["oddLines"] = [];
    const deflate = createDeflateRaw({ level: 6 });
    const written = (async () => {
      for await (const chunk of deflate) {
        await handle.write(chunk as Buffer, 0, (chunk as Buffer).length, position);
        position += (chunk as Buffer).length;
      }
    })();
    let batch: string[] = [];
    const flush = async () => {
      const bytes = Buffer.from(batch.join(""), "latin1");
      batch = [];
      crc = crc32(bytes, crc);
      uncompressed += bytes.length;
      if (!deflate.write(bytes)) await once(deflate, "drain");
    };
    let nextOdd = 0;
    for (let i = 0; i < count; i++) {
      batch.push(`${registryLine(sampleTaxpayer(i, edition), i)}\r\n`);
      lines++;
      taxpayers++;
      while (nextOdd < odd.length && odd[nextOdd]!.after === i) {
        const { kind } = odd[nextOdd]!;
        const text = oddLineText(kind, nextOdd++);
        for (const [k, line] of text.entries()) {
          batch.push(`${line}\r\n`);
          lines++;
          oddLines.push({ line: lines, kind: k === 0 ? kind : "record-tail" });
        }
        taxpayers++;
      }
      if (batch.length >= 2000) await flush();
    }
    await flush();
    deflate.end();
    await written;
    const compressed = position - localHeader.length;

    const central = Buffer.alloc(46 + name.length);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x5a00, 12);
    central.writeUInt16LE(0x5b79, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(compressed, 20);
    central.writeUInt32LE(uncompressed, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0, 42); // local header at 0
    name.copy(central, 46);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(central.length, 12);
    end.writeUInt32LE(position, 16);
    await handle.write(Buffer.concat([central, end]), 0, central.length + end.length, position);
    // The local header's CRC and sizes, now known.
    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(crc >>> 0, 0);
    sizes.writeUInt32LE(compressed, 4);
    sizes.writeUInt32LE(uncompressed, 8);
    await handle.write(sizes, 0, 12, 14);
    return { file, lines, taxpayers, oddLines, uncompressedBytes: uncompressed };
  } finally {
    await handle.close();
  }
}

/**
 * A sample registry imported into a running worker as the CLI does it (the same module), for a
 * test that needs buyers to look up (the till's browser tests): `sampleTaxpayer(i)` is then in
 * the registry for every i below `count`.
 */
export async function importSampleRegistry(
  workerUrl: string,
  adminSecret: string,
  options: SampleOptions = {},
): Promise<WrittenSample & { summary: ImportSummary }> {
  const dir = mkdtempSync(join(tmpdir(), "ecf-registry-"));
  try {
    const written = await writeSampleRegistryZip(join(dir, "DGII_RNC.zip"), options);
    return { ...written, summary: await importTaxpayerRegistry(adminApi(workerUrl, adminSecret), written.file) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The administration API as the import uses it (admin-client.mjs's shape, typed). */
function adminApi(workerUrl: string, adminSecret: string): AdminApi {
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${workerUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${adminSecret}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok)
      throw Object.assign(new Error(`${method} ${path} → ${res.status}: ${answer?.detail ?? ""}`), {
        status: res.status,
        body: answer,
      });
    return answer;
  };
  return { request, get: (path) => request("GET", path), post: (path, body) => request("POST", path, body) };
}
