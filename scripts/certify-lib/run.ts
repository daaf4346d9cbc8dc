// One DGII certification test set ("Pruebas de Datos", sheet ECF or RFCE, as CSV) through the
// issuing API: sets up the set's issuer (company, a certificate, e-NCF ranges covering the set's
// numbers with its FechaVencimientoSecuencia, a test key), sends every row as it is (its own e-NCF,
// dates and totals), writes each signed XML and returns one outcome per case. `npm run certify`
// prints them; the Node-side certification test asserts on them.
// RFCE sheet: its rows summarise the E32 below 250,000 of the sibling `__ECF.csv`; those E32 rows
// are issued, and each must have taken the RFCE path and been accepted.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { drIsoDate, isRfceSummary, type TipoeCF } from "@ecf/shared";
import {
  cellOf,
  isoFromDgiiDate,
  mapTestSetRow,
  readTestSet,
  type TestSet,
  type TestSetRow,
} from "@ecf/shared/testset";
import {
  issuingClient,
  revokeKey,
  setUpIssuer,
  type IssueAnswer,
  type ProblemBody,
  type RangeRequest,
} from "./issuer.ts";
// @ts-expect-error: plain JavaScript helper shared with the other root scripts.
import { certificatePemOfP12, generateTestP12 } from "../demo-certificate.mjs";

const CERTIFICATE_PASSWORD = "certify1234";
/** States that waiting will not change within this run (Contingencia is retried by the ledger's alarm, with back-off). */
const SETTLED = new Set(["Aceptado", "Aceptado Condicional", "Rechazado", "Anulado", "Contingencia"]);

export interface CertifyTarget {
  workerUrl: string;
  adminSecret: string;
  /** The DGII sandbox that worker talks to, to confirm which path each receipt took. */
  sandboxUrl?: string;
}

export interface CertifyOptions {
  /** The sheet's CSV file. */
  file: string;
  /** Where the signed XML go. */
  out: string;
  /** Register a range whose FechaVencimientoSecuencia is past until 31-12 of next year. */
  renewExpired: boolean;
  /** The issuer's own .p12 (DGII target); by default a test certificate is generated. */
  p12?: { bytes: Uint8Array; password: string };
  /** How long to wait for a receipt still in process to settle (the ledger's alarm finishes it); default 30 s. */
  settleMs?: number;
  /** Progress lines (setup, notes); default: none. */
  log?: (line: string) => void;
}

export interface Case {
  caso: string;
  encf: string;
  tipo: TipoeCF;
  document: Record<string, unknown>;
  /** E32 under 250,000: DGII gets the RFCE summary. */
  rfce: boolean;
  warnings: string[];
}

export interface Outcome {
  c: Case;
  /** The receipt's estado, or "Refused" when the service answered with a problem. */
  estado: string;
  /** An idempotent resend of a receipt DGII had already accepted. */
  reenviado: boolean;
  /** The path the receipt took, from its timbre URL. */
  path: "ECF" | "RFCE";
  /** What the sandbox received for this e-NCF (undefined without a sandbox URL). */
  sandboxKinds?: string[];
  mensajes: string[];
  /** The HTTP status of a refusal and its problem document. */
  refusal?: { status: number; problem?: ProblemBody };
  xmlFile?: string;
  ok: boolean;
}

export interface CertifyResult {
  sheet: "ECF" | "RFCE";
  rnc: string;
  ranges: RangeRequest[];
  notes: string[];
  outcomes: Outcome[];
}

/** Today in Santo Domingo (UTC−4), yyyy-MM-dd. */

export function loadCases(file: string): { set: TestSet; cases: Case[]; sheet: "ECF" | "RFCE" } {
  const text = readFileSync(file, "utf8");
  const given = readTestSet(text);
  const sheet = given.header.includes("CodigoSeguridadeCF") || /__RFCE\.csv$/i.test(file) ? "RFCE" : "ECF";
  let set = given;
  let rows: readonly TestSetRow[] = given.rows;
  if (sheet === "RFCE") {
    const sibling = file.replace(/__RFCE\.csv$/i, "__ECF.csv");
    if (sibling === file || !existsSync(sibling))
      throw new Error(`RFCE sheet: the ECF sheet ${basename(sibling)} is not next to it`);
    set = readTestSet(readFileSync(sibling, "utf8"));
    const wanted = given.rows.map((r) => cellOf(given, r, "ENCF"));
    rows = wanted.map((encf) => {
      const row = set.rows.find((r) => cellOf(set, r, "ENCF") === encf);
      if (!row) throw new Error(`RFCE row ${encf} has no row in ${basename(sibling)}`);
      return row;
    });
  }
  const cases = rows.map((row): Case => {
    const mapped = mapTestSetRow(set, row);
    const encf = cellOf(set, row, "ENCF") ?? "";
    return {
      caso: row.casoPrueba,
      encf,
      tipo: mapped.kind as TipoeCF,
      document: mapped.document,
      rfce: isRfceSummary(mapped.document),
      warnings: mapped.unplaced.map((u) => `column ${u.column}="${u.value}" not sent: ${u.reason}`),
    };
  });
  // Numbers are taken in order: a client-numbered e-NCF must not be below one already handed out.
  cases.sort((a, b) => a.encf.localeCompare(b.encf));
  return { set, cases, sheet };
}

function rangesFor(set: TestSet, cases: readonly Case[], renewExpired: boolean, notes: string[]): RangeRequest[] {
  const expiries = set.rows
    .map((r) => cellOf(set, r, "FechaVencimientoSecuencia"))
    .filter((d): d is string => !!d)
    .map(isoFromDgiiDate);
  const latest = expiries.sort().at(-1) ?? "2028-12-31";
  const today = drIsoDate(new Date());
  const byTipo = new Map<TipoeCF, number>();
  for (const c of cases) byTipo.set(c.tipo, Math.max(byTipo.get(c.tipo) ?? 0, Number(c.encf.slice(3))));
  return [...byTipo].map(([tipo, max]) => {
    const own = cases.find((c) => c.tipo === tipo && (c.document as any).Encabezado?.IdDoc?.FechaVencimientoSecuencia);
    let expiresOn = own ? isoFromDgiiDate((own.document as any).Encabezado.IdDoc.FechaVencimientoSecuencia) : latest;
    if (expiresOn < today) {
      if (renewExpired) {
        const renewed = `${Number(today.slice(0, 4)) + 1}-12-31`;
        notes.push(
          `E${tipo}: FechaVencimientoSecuencia ${expiresOn} is past; range registered until ${renewed} (--renew-expired), the signed e-CF carries that date`,
        );
        expiresOn = renewed;
      } else
        notes.push(
          `E${tipo}: FechaVencimientoSecuencia ${expiresOn} is past (today ${today}); range registered as given, so the service refuses its cases (--renew-expired to register it until next year)`,
        );
    }
    // Room above the set's numbers, so registering it again after a run stays valid (a range
    // must end after the numbers already used).
    return { tipo, rangeFrom: 1, rangeTo: Math.min(max + 1000, 9_999_999_999), expiresOn };
  });
}

function problemLines(status: number, p: ProblemBody | undefined): string[] {
  const lines = [`HTTP ${status} ${p?.code ?? ""}: ${p?.detail ?? p?.title ?? ""}`.trim()];
  for (const e of p?.errors ?? []) if (e.severity !== "warning") lines.push(`${e.code} ${e.path}: ${e.message}`);
  return lines;
}

export async function settle(
  client: Awaited<ReturnType<typeof issuingClient>>,
  answer: IssueAnswer,
  settleMs: number,
): Promise<IssueAnswer> {
  // The request itself polls briefly; the ledger's alarm finishes the rest (with back-off). Ask again each second.
  let current = answer;
  for (const until = Date.now() + settleMs; Date.now() < until && !SETTLED.has(current.estado); ) {
    await new Promise((r) => setTimeout(r, 1000));
    current = await client.status(current.encf);
  }
  return current;
}

async function sandboxKinds(sandboxUrl: string | undefined, rnc: string, encf: string): Promise<string[] | undefined> {
  if (!sandboxUrl) return undefined;
  try {
    const res = await fetch(`${sandboxUrl}/__sandbox/received?rnc=${rnc}&encf=${encf}`, {
      signal: AbortSignal.timeout(3000),
    });
    if (!res.ok) return undefined;
    const entries = (await res.json()) as { kind: string }[];
    return entries.map((e) => e.kind);
  } catch {
    return undefined;
  }
}

/** Runs one sheet against `target`; the issuer's test key is revoked at the end. */
export async function certify(target: CertifyTarget, options: CertifyOptions): Promise<CertifyResult> {
  const log = options.log ?? (() => {});
  const { set, cases, sheet } = loadCases(options.file);
  if (!cases.length) throw new Error("the test set has no rows");
  const first = set.rows[0]!;
  const rnc = cellOf(set, first, "RNCEmisor")!;
  const notes: string[] = [];
  const ranges = rangesFor(set, cases, options.renewExpired, notes);
  log(`Test set ${basename(options.file)} (sheet ${sheet}): ${cases.length} case(s), issuer RNC ${rnc}`);

  const { workerUrl, adminSecret, sandboxUrl } = target;
  const certificate = options.p12
    ? { p12: options.p12.bytes, password: options.p12.password }
    : {
        p12: generateTestP12({
          commonName: cellOf(set, first, "RazonSocialEmisor") ?? rnc,
          serialNumber: rnc,
          password: CERTIFICATE_PASSWORD,
        }) as Uint8Array,
        password: CERTIFICATE_PASSWORD,
      };
  const setup = await setUpIssuer(
    workerUrl,
    adminSecret,
    {
      rnc,
      legalName: cellOf(set, first, "RazonSocialEmisor") ?? rnc,
      ...optional("tradeName", cellOf(set, first, "NombreComercial")),
      ...optional("address", cellOf(set, first, "DireccionEmisor")),
      ...optional("municipality", cellOf(set, first, "Municipio")),
      ...optional("province", cellOf(set, first, "Provincia")),
      dgiiEnvironment: "certecf",
    },
    certificate,
    ranges,
    // The sandbox, like DGII, takes the issuer's e-CF only from its registered signer.
    sandboxUrl
      ? { url: sandboxUrl, certificatePem: certificatePemOfP12(certificate.p12, certificate.password) }
      : undefined,
  );
  try {
    log(
      `Issuer ${rnc} ${setup.created ? "created" : "found"} (${setup.companyId}); ${options.p12 ? "its certificate" : "a generated test certificate"} uploaded; ranges ${ranges.map((r) => `E${r.tipo} 1-${r.rangeTo} until ${r.expiresOn}`).join(", ")}`,
    );
    notes.push(...setup.rangeNotes);
    for (const n of notes) log(`Note: ${n}`);
    const client = await issuingClient(workerUrl, setup.apiKey, setup.apiSecret);
    mkdirSync(options.out, { recursive: true });

    const outcomes: Outcome[] = [];
    for (const c of cases) {
      const sent = await client.issue(c.document);
      const o: Outcome = {
        c,
        estado: "Refused",
        reenviado: false,
        path: c.rfce ? "RFCE" : "ECF",
        mensajes: [...c.warnings],
        ok: false,
      };
      if (sent.answer) {
        const a = await settle(client, sent.answer, options.settleMs ?? 30_000);
        o.estado = a.estado;
        o.reenviado = a.reenviado;
        o.mensajes.push(...a.mensajes.map((m) => (m.codigo ? `${m.codigo} ${m.valor}` : m.valor)));
        const xml = await client.signedXml(c.encf);
        o.xmlFile = join(options.out, `${rnc}${c.encf}.xml`);
        writeFileSync(o.xmlFile, xml);
        o.ok = a.estado === "Aceptado" || a.estado === "Aceptado Condicional";
        // The RFCE path: the worker's timbre is the consumer-summary form, and the sandbox
        // received an RFCE (not the full e-CF) for this e-NCF.
        o.path = a.urlTimbre.includes("consultatimbrefc") ? "RFCE" : "ECF";
        const kinds = await sandboxKinds(sandboxUrl, rnc, c.encf);
        if (kinds) o.sandboxKinds = kinds;
        const sandboxSaw = kinds
          ? kinds.includes("rfce")
            ? "RFCE"
            : kinds.includes("ecf")
              ? "ECF"
              : "nothing"
          : undefined;
        if (sandboxSaw && sandboxSaw !== o.path) {
          o.ok = false;
          o.mensajes.push(`sandbox received ${sandboxSaw}`);
        }
        if ((o.path === "RFCE") !== c.rfce || (sheet === "RFCE" && o.path !== "RFCE")) {
          o.ok = false;
          o.mensajes.push(`expected the ${c.rfce ? "RFCE" : "ECF"} path`);
        }
      } else {
        o.refusal = { status: sent.status, ...(sent.problem ? { problem: sent.problem } : {}) };
        o.mensajes.push(...problemLines(sent.status, sent.problem));
      }
      outcomes.push(o);
    }
    return { sheet, rnc, ranges, notes, outcomes };
  } finally {
    await revokeKey(workerUrl, adminSecret, setup.keyId).catch(() => {});
  }
}

/** The per-case table `npm run certify` prints. */
export function formatTable(outcomes: readonly Outcome[]): string {
  const rows = outcomes.map((o) => [
    o.c.caso,
    o.c.encf,
    o.path,
    o.estado + (o.reenviado ? " (resent)" : ""),
    o.mensajes.join(" | ") || "-",
  ]);
  const head = ["CasoPrueba", "e-NCF", "via", "estado", "mensajes (DGII / service)"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i < 4 ? r[i]!.length : 0))));
  const line = (r: string[]) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
