// The month's archive as one zip, streamed: every document R2 keeps for the issuer's month (the
// signed XML it issued, with its buyers' ARECF/ACECF and the PDFs already rendered, under
// emitidos/; the e-CF its suppliers sent, with our ARECF/ACECF, under recibidos/), then an index
// (indice.csv) of the ledger's receipts and purchases naming their files in the zip. Objects come
// from R2's listing a page at a time and each body is passed through as it is read, so the Worker
// holds one object's chunk, never the month. PDFs not rendered yet are
// not rendered here (GET /fe/recepcion/ecf/{encf}/pdf makes one): a month is thousands of them.
// The central directory spills to R2 as it grows and the index reads the zip's names back from
// it, so a month of millions of receipts streams in bounded memory.
import type { Company } from "../db/tables.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import type { Purchase, Receipt } from "../ledger/rows.ts";
import { csvRow } from "./csv.ts";
import { approvalEstadoOf, estadoOf } from "../ledger/month/estado.ts";
import { CentralDirectory, r2DirectorySpill } from "../archive/zip-directory.ts";
import { zipChunks, type ZipEntry, type ZipOptions } from "../archive/zip-stream.ts";

/** R2 gets started ahead of the one being streamed (R2's latency, not its bandwidth, is the cost). */
const LOOKAHEAD = 16;
const LIST_PAGE = 1000;

export const INDEX_COLUMNS = [
  "origen",
  "encf",
  "tipoeCF",
  "fechaEmision",
  "rnc",
  "razonSocial",
  "montoTotal",
  "totalITBIS",
  "estado",
  "archivoXml",
  "sha256Xml",
  "archivoArecf",
  "archivoAcecf",
  "archivoPdf",
] as const;

/** Where the month's documents are in R2, and the folder each goes to in the zip. */
export function monthPrefixes(rnc: string, month: string): { prefix: string; folder: string }[] {
  const [yyyy, mm] = month.split("-");
  return [
    { prefix: `${rnc}/${yyyy}/${mm}/`, folder: "emitidos/" },
    { prefix: `${rnc}/compras/${yyyy}/${mm}/`, folder: "recibidos/" },
  ];
}

export interface ArchivedFile {
  key: string;
  uploaded: Date;
  body: ReadableStream<Uint8Array>;
}

/** The objects under a prefix, in key order, with a few gets in flight ahead of the one read. */
export async function* objectsUnder(bucket: R2Bucket, prefix: string): AsyncGenerator<ArchivedFile> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: LIST_PAGE });
    const keys = page.objects.map((o) => o.key);
    const started: (Promise<R2ObjectBody | null> | undefined)[] = [];
    let next = 0;
    try {
      for (let i = 0; i < keys.length; i++) {
        for (; next < keys.length && next <= i + LOOKAHEAD; next++) started[next] = bucket.get(keys[next]!);
        const object = await started[i]!;
        started[i] = undefined;
        // Gone since the listing (never, for an immutable archive): nothing to put in the zip.
        if (object) yield { key: object.key, uploaded: object.uploaded, body: object.body };
      }
    } finally {
      // Abandoned (the client went away): close the bodies fetched ahead.
      for (const pending of started) void pending?.then((o) => o?.body.cancel()).catch(() => {});
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** Every row of the month object, a page at a time. */
async function* rowsOf<T>(
  page: (after: string | undefined) => Promise<T[]>,
  keyOf: (row: T) => string,
): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const rows = await page(after);
    if (!rows.length) return;
    yield* rows;
    after = keyOf(rows[rows.length - 1]!);
  }
}

const encoder = new TextEncoder();

/**
 * indice.csv: one line per receipt and purchase of the month (the ledger's word on what exists),
 * with the zip paths of its files, empty when a file is not in the zip (not rendered, not received).
 */
async function* indexCsv(
  env: Env,
  company: Company,
  month: string,
  directory: CentralDirectory,
): AsyncGenerator<Uint8Array> {
  yield encoder.encode(csvRow(INDEX_COLUMNS));
  if (!(await issuerLedger(env, company.id).index().months(month, month)).length) return;
  const stub = receiptMonth(env, company.id, month);
  const [issued, received] = monthPrefixes(company.rnc, month) as [ArchiveFolder, ArchiveFolder];
  const names = directory.names();
  const inIssued = new NamesInOrder(names, issued.folder);
  // Lines are sent in chunks of up to 500, whether receipts or purchases.
  let lines: string[] = [];
  const receivedRows = async function* () {
    // The receipts' walk has read the directory up to recibidos/: the rest is the suppliers' files.
    yield* receivedIndexRows(stub, received, await namesUnder(inIssued.rest(), received.folder));
  };
  for (const rows of [issuedIndexRows(stub, issued, inIssued), receivedRows()]) {
    for await (const row of rows) {
      lines.push(row);
      if (lines.length >= 500) {
        yield encoder.encode(lines.join(""));
        lines = [];
      }
    }
  }
  if (lines.length) yield encoder.encode(lines.join(""));
}

/** Where a month's objects are in R2 (`prefix`) and in the zip (`folder`). */
type ArchiveFolder = { prefix: string; folder: string };

/** Which names the zip holds: a set, or the directory walked in step with the receipts (NamesInOrder). */
interface ZipNames {
  has(path: string): boolean;
}

/** The zip path of a document's XML, and the base its companions are named from. */
function zipPathOf(xmlKey: string, at: ArchiveFolder): { xml: string; base: string } {
  const xml = xmlKey.startsWith(at.prefix) ? at.folder + xmlKey.slice(at.prefix.length) : xmlKey;
  return { xml, base: xml.replace(/\.xml$/, "") };
}

/** A document's files as the index names them: its XML and companions' zip paths, empty when not in the zip. */
function indexFiles(inZip: ZipNames, xmlKey: string, at: ArchiveFolder) {
  const present = (path: string) => (inZip.has(path) ? path : "");
  const { xml, base } = zipPathOf(xmlKey, at);
  return {
    archivoXml: present(xml),
    archivoArecf: present(`${base}.arecf.xml`),
    archivoAcecf: present(`${base}.acecf.xml`),
    archivoPdf: [".pdf", ".a4.pdf", ".letter.pdf", ".roll80.pdf"]
      .map((s) => present(base + s))
      .filter(Boolean)
      .join(";"),
  };
}

/** The index's lines of the receipts the issuer issued in the month. */
async function* issuedIndexRows(
  stub: ReturnType<typeof receiptMonth>,
  issued: ArchiveFolder,
  inIssued: NamesInOrder,
): AsyncGenerator<string> {
  for await (const r of rowsOf(
    (after) => stub.reports().receiptsPage({ after }),
    (r: Receipt) => r.encf,
  )) {
    const inZip = await inIssued.group(zipPathOf(r.xmlKey, issued).base);
    yield csvRow(INDEX_COLUMNS, {
      origen: "emitido",
      encf: r.encf,
      tipoeCF: r.tipoeCF,
      fechaEmision: r.issueDate,
      rnc: r.rncComprador,
      razonSocial: r.razonSocialComprador,
      montoTotal: r.montoTotal,
      totalITBIS: r.totalItbis,
      estado: estadoOf(r.status, Boolean(r.trackId)).estado,
      sha256Xml: r.xmlSha256,
      ...indexFiles(inZip, r.xmlKey, issued),
    });
  }
}

/** The index's lines of the e-CF the issuer's suppliers sent in the month. */
async function* receivedIndexRows(
  stub: ReturnType<typeof receiptMonth>,
  received: ArchiveFolder,
  inZip: ZipNames,
): AsyncGenerator<string> {
  for await (const p of rowsOf(
    (after) => stub.reports().purchasesPage({ after }),
    (p: Purchase) => p.id,
  )) {
    yield csvRow(INDEX_COLUMNS, {
      origen: "recibido",
      encf: p.encf,
      tipoeCF: p.tipoeCF,
      fechaEmision: p.issueDate,
      rnc: p.rncEmisor,
      razonSocial: p.razonSocialEmisor,
      montoTotal: p.montoTotal,
      totalITBIS: p.totalItbis,
      // The commercial approval given, else our ARECF's Estado, in DGII's words.
      estado: p.approvalStatus
        ? approvalEstadoOf(p.approvalStatus)
        : p.arecfEstado === "1"
          ? "No Recibido"
          : "Recibido",
      sha256Xml: p.xmlSha256,
      ...indexFiles(inZip, p.xmlKey, received),
    });
  }
}

export interface MonthArchiveOptions extends ZipOptions {
  /** The index's timestamp (default: now). */
  now?: Date;
  /** Directory bytes held before a segment spills to R2 (default SPILL_BYTES; a test lowers it). */
  spillBytes?: number;
}

/**
 * The zip's names under a folder walked in step with the receipts, both in e-NCF order: a
 * receipt's files are `{folder}{e-NCF}.*`, which sort together and in e-NCF order, so each
 * receipt's group is read once and the month's names are never all held.
 */
class NamesInOrder implements ZipNames {
  private readonly names: AsyncIterator<string>;
  private readonly folder: string;
  private next: IteratorResult<string> | undefined;
  private current = new Set<string>();
  constructor(names: AsyncIterator<string>, folder: string) {
    this.names = names;
    this.folder = folder;
  }
  private async peek(): Promise<string | undefined> {
    this.next ??= await this.names.next();
    return this.next.done ? undefined : this.next.value;
  }
  /** The names of one base (`{base}.…`), skipping those before it; this object answers `has` for them. */
  async group(base: string): Promise<ZipNames> {
    this.current = new Set();
    if (!base.startsWith(this.folder)) return this;
    const group = `${base}.`;
    for (let name = await this.peek(); name?.startsWith(this.folder); name = await this.peek()) {
      if (name.startsWith(group)) this.current.add(name);
      else if (name > group) break; // a later receipt's (or nobody's): left for the next group
      this.next = undefined;
    }
    return this;
  }
  has(path: string): boolean {
    return this.current.has(path);
  }
  /** The names after this folder's. */
  async *rest(): AsyncGenerator<string> {
    for (let name = await this.peek(); name !== undefined; name = await this.peek()) {
      this.next = undefined;
      if (!name.startsWith(this.folder)) yield name;
    }
  }
}

/** The names under a folder, as a set (the suppliers' files: one purchase's worth each, far fewer than receipts). */
async function namesUnder(names: AsyncIterable<string>, folder: string): Promise<ZipNames> {
  const set = new Set<string>();
  for await (const name of names) if (name.startsWith(folder)) set.add(name);
  return set;
}

/** The zip's entries: the archived files of the month, then the index (from the directory's names). */
async function* monthEntries(
  env: Env,
  company: Company,
  month: string,
  now: Date,
  directory: CentralDirectory,
): AsyncGenerator<ZipEntry> {
  for (const { prefix, folder } of monthPrefixes(company.rnc, month)) {
    for await (const file of objectsUnder(env.ARCHIVE, prefix)) {
      yield { name: folder + file.key.slice(prefix.length), modified: file.uploaded, body: file.body };
    }
  }
  yield { name: "indice.csv", modified: now, body: indexCsv(env, company, month, directory) };
}

/** Where a zip's spilled directory segments go in R2: apart from every issuer's documents. */
export const SPILL_PREFIX = ".spill/zip-directory/";

/**
 * The month's zip, a chunk at a time. Its central directory spills to R2 (under SPILL_PREFIX,
 * deleted when the zip ends), so memory stays bounded at millions of entries.
 */
export function monthArchive(
  env: Env,
  company: Company,
  month: string,
  options: MonthArchiveOptions = {},
): AsyncGenerator<Uint8Array> {
  const spill = r2DirectorySpill(env.ARCHIVE, `${SPILL_PREFIX}${crypto.randomUUID()}/`);
  const directory = options.directory ?? new CentralDirectory(spill, options.spillBytes);
  return zipChunks(monthEntries(env, company, month, options.now ?? new Date(), directory), {
    ...options,
    directory,
  });
}
