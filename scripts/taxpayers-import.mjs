// `npm run admin -- taxpayers:import --file DGII_RNC.zip`: DGII's taxpayer registry into the
// worker. The zip is read as a stream (its central directory and the text file's local header,
// then the deflated bytes through zlib's inflateRaw, decoded as ISO-8859-1 and cut into lines),
// so memory stays flat whatever the file's size; rows go to the worker in chunks
// (POST /admin/taxpayers/imports/{id}/rows) and the import is committed at the end, replacing the
// previous registry at once. Plain Node, no dependency: admin.mjs runs without a TypeScript loader.
import { open } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { createInflateRaw, crc32 } from "node:zlib";

/*
 * DGII_RNC.TXT, one taxpayer per line, 11 fields separated by "|", ISO-8859-1, CRLF, no header:
 *
 *   0 RNC (9 digits) or cédula (11 digits)     6 address: sector
 *   1 legal name (razón social / person)       7 telephone
 *   2 trade name (nombre comercial)            8 registration date, dd/mm/yyyy ("00/00/0000" or empty: none)
 *   3 economic activity                        9 status: ACTIVO, SUSPENDIDO, DADO DE BAJA, …
 *   4 address: street                          10 payment regime: NORMAL, …
 *   5 address: number
 *
 * As read by public projects that load DGII's file: joenilson/fsRepublicaDominicana
 * Model/RNCDGIIDB.php (TMP/DGII_RNC.TXT inside DGII_RNC.zip, ISO-8859 text, 11 fields per line,
 * date in field 8 with 00/00/0000 for none, status 9, payment regime 10) and
 * angelmadames/dgii-rnc-api src/utils/rnc-parser.ts (the same positions; names padded with runs
 * of spaces). The address and telephone are not kept: a buyer lookup needs name and status.
 */
export const REGISTRY_FIELDS = 11;
const F = { rnc: 0, legalName: 1, tradeName: 2, activity: 3, registeredOn: 8, status: 9, paymentRegime: 10 };

/** Rows per request: the worker accepts up to 5,000 (about 1.2 MB of JSON). */
export const DEFAULT_CHUNK_ROWS = 5000;
/** Chunks in flight at once: one is being stored while the next is read and sent. */
const IN_FLIGHT = 2;
/** How many problem lines the summary names (all are counted). */
const PROBLEMS_SHOWN = 10;

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/**
 * Finds the registry's text file in the zip: the central directory (at the end of the file) names
 * each entry with its method, sizes, CRC-32 and where its local header is; the local header says
 * where the data starts. The central directory is read rather than the first local header alone
 * because a zip written by a streaming tool leaves the local header's sizes empty.
 */
export async function locateRegistryEntry(file) {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
    const entries = tail.readUInt16LE(eocd + 10);
    const directorySize = tail.readUInt32LE(eocd + 12);
    const directoryOffset = tail.readUInt32LE(eocd + 16);
    if (entries === 0xffff || directoryOffset === 0xffffffff)
      throw new Error(`${file} is a ZIP64 archive; DGII's registry never needs one`);
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    const found = [];
    for (let at = 0, n = 0; n < entries; n++) {
      if (directory.readUInt32LE(at) !== CENTRAL_SIGNATURE) throw new Error(`${file}: damaged central directory`);
      const nameLength = directory.readUInt16LE(at + 28);
      const flags = directory.readUInt16LE(at + 8);
      found.push({
        name: directory.toString(flags & 0x800 ? "utf8" : "latin1", at + 46, at + 46 + nameLength),
        method: directory.readUInt16LE(at + 10),
        crc: directory.readUInt32LE(at + 16),
        compressedSize: directory.readUInt32LE(at + 20),
        size: directory.readUInt32LE(at + 24),
        localHeaderOffset: directory.readUInt32LE(at + 42),
        encrypted: (flags & 1) === 1,
      });
      at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
    }
    const texts = found.filter((e) => /\.txt$/i.test(e.name));
    const entry = texts.length
      ? texts.reduce((a, b) => (b.size > a.size ? b : a))
      : found.length === 1
        ? found[0]
        : undefined;
    if (!entry)
      throw new Error(`${file} holds no .TXT file (entries: ${found.map((e) => e.name).join(", ") || "none"})`);
    if (entry.encrypted) throw new Error(`${entry.name} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8)
      throw new Error(`${entry.name} uses compression method ${entry.method}; only stored and deflate are read`);
    const local = Buffer.alloc(30);
    await handle.read(local, 0, 30, entry.localHeaderOffset);
    if (local.readUInt32LE(0) !== LOCAL_SIGNATURE)
      throw new Error(`${file}: no local header where the directory says ${entry.name} starts`);
    const dataOffset = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    return { ...entry, dataOffset };
  } finally {
    await handle.close();
  }
}

/**
 * The registry file's lines, in order, with their numbers (from 1), read as a stream. The CRC-32
 * and size the directory records are checked at the end, so a damaged download fails the import
 * instead of committing a truncated registry. `progress(bytesRead, compressedSize)` follows the
 * reading of the compressed bytes.
 */
export async function* registryLines(file, progress = () => {}) {
  const entry = await locateRegistryEntry(file);
  const compressed = createReadStream(file, {
    start: entry.dataOffset,
    end: entry.dataOffset + entry.compressedSize - 1,
    highWaterMark: 1 << 20,
  });
  compressed.on("data", () => progress(compressed.bytesRead, entry.compressedSize));
  const bytes = entry.method === 8 ? compressed.pipe(createInflateRaw()) : compressed;
  compressed.on("error", (error) => bytes.destroy(error));
  let crc = 0;
  let size = 0;
  let pending = "";
  let number = 0;
  for await (const chunk of bytes) {
    crc = crc32(chunk, crc);
    size += chunk.length;
    // ISO-8859-1 is one byte per character, so a chunk never ends inside a character.
    const lines = (pending + chunk.toString("latin1")).split("\n");
    pending = lines.pop();
    for (const line of lines) yield { number: ++number, text: line.endsWith("\r") ? line.slice(0, -1) : line };
  }
  if (size !== entry.size || crc >>> 0 !== entry.crc)
    throw new Error(
      `${entry.name} is damaged: ${size} bytes with CRC ${crc >>> 0}, the zip says ${entry.size} with ${entry.crc}`,
    );
  if (pending.length) yield { number: ++number, text: pending.endsWith("\r") ? pending.slice(0, -1) : pending };
}

const clean = (field) => (field ?? "").replace(/\s+/g, " ").trim();
const orNull = (text) => (text === "" ? null : text);

/** dd/mm/yyyy → yyyy-mm-dd; "" and 00/00/0000 are DGII's "no date" (null); anything else is a problem. */
function registrationDate(text) {
  if (text === "" || /^0{1,2}\/0{1,2}\/0{1,4}$/.test(text)) return { date: null };
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (m) {
    const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day)
      return { date: date.toISOString().slice(0, 10) };
  }
  return { date: null, problem: `registration date "${text}" is not dd/mm/yyyy` };
}

/**
 * One line of DGII's file → a taxpayer row for the worker, with what was odd about it. A line
 * without an RNC or cédula cannot be looked up and is skipped; any other oddity (a field count
 * other than 11, a bad date, no name) is reported but the row is kept with what could be read.
 * Extra fields (a "|" typed inside a name) are taken from the start for the RNC and names and
 * from the end for the date, status and regime, whose positions there do not move.
 */
export function parseRegistryLine(text) {
  const fields = text.split("|");
  const rnc = clean(fields[F.rnc]).replace(/[-\s]/g, "");
  if (!/^(\d{9}|\d{11})$/.test(rnc))
    return { skipped: `no RNC or cédula (first field "${clean(fields[F.rnc]).slice(0, 20)}")` };
  const problems = [];
  const fromEnd = (position) =>
    fields.length > REGISTRY_FIELDS ? fields[fields.length - (REGISTRY_FIELDS - position)] : fields[position];
  if (fields.length !== REGISTRY_FIELDS) problems.push(`${fields.length} fields, expected ${REGISTRY_FIELDS}`);
  const legalName = clean(fields[F.legalName]);
  if (!legalName) problems.push("no legal name");
  const { date, problem } = registrationDate(clean(fromEnd(F.registeredOn)));
  if (problem) problems.push(problem);
  const status = clean(fromEnd(F.status));
  if (!status) problems.push("no status");
  return {
    row: {
      rnc,
      legalName,
      tradeName: orNull(clean(fields[F.tradeName])),
      activity: orNull(clean(fields[F.activity])),
      status,
      paymentRegime: orNull(clean(fromEnd(F.paymentRegime))),
      registeredOn: date,
    },
    problem: problems.join("; ") || undefined,
  };
}

/**
 * Reads the zip and imports it: start, chunks (two in flight; a chunk that meets a network error
 * or a 5xx is sent again, which the worker stores once), commit, then the replaced rows purged.
 * Anything that stops the reading abandons the import, so it never becomes visible.
 * `report(line)` receives progress lines.
 */
export async function importTaxpayerRegistry(api, file, { chunkRows = DEFAULT_CHUNK_ROWS, report = () => {} } = {}) {
  const started = performance.now();
  await purge(api);
  const { importId } = await api.post("/admin/taxpayers/imports", { source: basename(file) });
  const summary = { importId, lines: 0, rowsSent: 0, skipped: 0, withProblems: 0, problems: [] };
  const inFlight = new Set();
  let readShare = 0;
  let reported = 0;
  const send = async (rows) => {
    await withRetries(() => api.post(`/admin/taxpayers/imports/${importId}/rows`, { rows }));
    summary.rowsSent += rows.length;
    // A line each time another tenth of the file has been read: ten lines whatever its size.
    if (Math.floor(readShare * 10) > reported) {
      reported = Math.floor(readShare * 10);
      report(
        `taxpayers:import: ${summary.rowsSent.toLocaleString("en")} rows sent (${Math.round(readShare * 100)} % of the file read)`,
      );
    }
  };
  const dispatch = async (rows) => {
    const sending = send(rows);
    inFlight.add(sending);
    sending.then(
      () => inFlight.delete(sending),
      () => {},
    );
    // At most IN_FLIGHT chunks at once: reading waits, so memory holds a few chunks, not the file.
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  };
  try {
    let chunk = [];
    for await (const { number, text } of registryLines(file, (read, total) => (readShare = read / total))) {
      summary.lines = number;
      if (text.trim() === "") continue;
      const parsed = parseRegistryLine(text);
      if (parsed.skipped || parsed.problem) {
        if (parsed.skipped) summary.skipped++;
        else summary.withProblems++;
        if (summary.problems.length < PROBLEMS_SHOWN)
          summary.problems.push({
            line: number,
            problem: parsed.skipped ? `skipped: ${parsed.skipped}` : parsed.problem,
          });
      }
      if (!parsed.row) continue;
      chunk.push(parsed.row);
      if (chunk.length >= chunkRows) {
        await dispatch(chunk);
        chunk = [];
      }
    }
    if (chunk.length) await dispatch(chunk);
    await Promise.all(inFlight);
    if (summary.rowsSent === 0)
      throw new Error(`${file}: no taxpayer line in ${summary.lines} lines; is it DGII's registry?`);
  } catch (error) {
    await Promise.allSettled(inFlight);
    await api.request("DELETE", `/admin/taxpayers/imports/${importId}`).catch(() => {});
    throw error;
  }
  const committed = await withRetries(() => api.post(`/admin/taxpayers/imports/${importId}/commit`));
  const purged = await purge(api);
  const seconds = (performance.now() - started) / 1000;
  report(
    `taxpayers:import: ${committed.rows.toLocaleString("en")} taxpayers imported (import ${importId}) in ${seconds.toFixed(1)} s from ${summary.lines.toLocaleString("en")} lines; ${summary.skipped} skipped, ${summary.withProblems} kept with problems`,
  );
  for (const { line, problem } of summary.problems) report(`  line ${line}: ${problem}`);
  return {
    importId,
    rows: committed.rows,
    importedAt: committed.committedAt,
    lines: summary.lines,
    skippedLines: summary.skipped,
    linesWithProblems: summary.withProblems,
    firstProblems: summary.problems,
    replacedRowsDeleted: purged,
    seconds: Number(seconds.toFixed(1)),
  };
}

/** Deletes the rows of replaced and abandoned imports, a chunk per request, until none remain. */
async function purge(api) {
  let deleted = 0;
  for (;;) {
    const round = await withRetries(() => api.post("/admin/taxpayers/purge"));
    deleted += round.deleted;
    if (!round.remaining) return deleted;
  }
}

/** Sends again after a network error, a 5xx or a 429 (up to 5 times, 0.5 s doubling); a 4xx is final. */
async function withRetries(attempt) {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const transient = error.status === undefined || error.status >= 500 || error.status === 429;
      if (!transient || tries >= 6) throw error;
      await new Promise((r) => setTimeout(r, 500 * 2 ** (tries - 1)));
    }
  }
}
