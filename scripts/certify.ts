#!/usr/bin/env node
// `npm run certify -- <file.csv> [--out dir] [--worker URL] [--sandbox URL] [--renew-expired]`
//
// Runs a DGII certification test set ("Pruebas de Datos", sheet ECF or RFCE, as CSV) through the
// issuing API: sets up the set's issuer (company, a generated test certificate, e-NCF ranges
// covering the set's numbers with its FechaVencimientoSecuencia, a test key), sends every row as
// it is (its own e-NCF, dates and totals), prints a per-case table and writes each signed XML.
//
// Target: --worker URL; else the worker of `npm start` on 127.0.0.1:8787 if it answers; else a
// private wrangler dev + DGII sandbox started (and stopped) by this script.
// RFCE sheet: its rows summarise the E32 below 250,000 of the sibling `__ECF.csv`; those E32 rows
// are issued, and each must have taken the RFCE path and been accepted by the sandbox.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { isRfceSummary, type TipoeCF } from "@ecf/shared";
import { cellOf, isoFromDgiiDate, mapTestSetRow, readTestSet, type TestSet, type TestSetRow } from "@ecf/shared/testset";
import { issuingClient, revokeKey, setUpIssuer, type IssueAnswer, type ProblemBody, type RangeRequest } from "./certify-lib/issuer.ts";
import { answers, startLocalStack, type LocalStack } from "./local-stack.ts";
// @ts-ignore: plain JavaScript helpers shared with the other root scripts.
import { generateTestP12 } from "./demo-certificate.mjs";
// @ts-ignore
import { devVar, root } from "./lib.mjs";

const DEFAULT_WORKER = "http://127.0.0.1:8787";
const DEFAULT_SANDBOX = "http://127.0.0.1:8788";
const CERTIFICATE_PASSWORD = "certify1234";
/** States that waiting will not change within this run (Contingencia is retried by the queue, with back-off). */
const SETTLED = new Set(["Aceptado", "Aceptado Condicional", "Rechazado", "Anulado", "Contingencia"]);

interface Options {
  file: string;
  out: string;
  worker?: string;
  sandbox?: string;
  renewExpired: boolean;
  /** The issuer's own .p12 (DGII target); by default a test certificate is generated. */
  p12?: string;
}

function parseArgs(argv: string[]): Options {
  const rest: string[] = [];
  const o: Partial<Options> = { renewExpired: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.split("=", 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--out") o.out = value();
    else if (flag === "--worker") o.worker = value();
    else if (flag === "--sandbox") o.sandbox = value();
    else if (flag === "--renew-expired") o.renewExpired = true;
    else if (flag === "--p12") o.p12 = value();
    else if (flag === "--help" || flag === "-h") usage(0);
    else if (a.startsWith("--")) {
      console.error(`unknown option ${a}`);
      usage(2);
    } else rest.push(a);
  }
  if (rest.length !== 1) usage(2);
  return { file: resolve(rest[0]!), out: resolve(o.out ?? join(root, "certify-out")), renewExpired: o.renewExpired!, ...(o.worker ? { worker: o.worker.replace(/\/+$/, "") } : {}), ...(o.sandbox ? { sandbox: o.sandbox.replace(/\/+$/, "") } : {}), ...(o.p12 ? { p12: resolve(o.p12) } : {}) };
}

function usage(code: number): never {
  console.log(`Usage: npm run certify -- <test-set.csv> [--out dir] [--worker URL] [--sandbox URL] [--renew-expired]

  <test-set.csv>   a DGII "Pruebas de Datos" sheet as CSV: ECF, or RFCE (then the sibling __ECF.csv is read)
  --out dir        where the signed XML go (default certify-out/)
  --worker URL     the worker to use (default ${DEFAULT_WORKER} if it answers, else a private one is started)
  --sandbox URL    the DGII sandbox that worker talks to, to confirm RFCE receptions (default ${DEFAULT_SANDBOX})
  --p12 file.p12   upload this certificate (password in CERTIFY_P12_PASSWORD) instead of a generated test one
  --renew-expired  register a range whose FechaVencimientoSecuencia is already past until 31-12 of next
                   year (the signed e-CF then carries that date); by default it is registered as given
                   and the service refuses its cases`);
  process.exit(code);
}

/** Today in Santo Domingo (UTC−4), yyyy-MM-dd. */
const todayDr = () => new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);

interface Case {
  caso: string;
  encf: string;
  tipo: TipoeCF;
  document: Record<string, unknown>;
  /** E32 under 250,000: DGII gets the RFCE summary. */
  rfce: boolean;
  warnings: string[];
}

function loadCases(options: Options): { set: TestSet; cases: Case[]; sheet: "ECF" | "RFCE" } {
  const text = readFileSync(options.file, "utf8");
  const given = readTestSet(text);
  const sheet = given.header.includes("CodigoSeguridadeCF") || /__RFCE\.csv$/i.test(options.file) ? "RFCE" : "ECF";
  let set = given;
  let rows: readonly TestSetRow[] = given.rows;
  if (sheet === "RFCE") {
    const sibling = options.file.replace(/__RFCE\.csv$/i, "__ECF.csv");
    if (sibling === options.file || !existsSync(sibling)) throw new Error(`RFCE sheet: the ECF sheet ${basename(sibling)} is not next to it`);
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
  const expiries = set.rows.map((r) => cellOf(set, r, "FechaVencimientoSecuencia")).filter((d): d is string => !!d).map(isoFromDgiiDate);
  const latest = expiries.sort().at(-1) ?? "2028-12-31";
  const today = todayDr();
  const byTipo = new Map<TipoeCF, number>();
  for (const c of cases) byTipo.set(c.tipo, Math.max(byTipo.get(c.tipo) ?? 0, Number(c.encf.slice(3))));
  return [...byTipo].map(([tipo, max]) => {
    const own = cases.find((c) => c.tipo === tipo && (c.document as any).Encabezado?.IdDoc?.FechaVencimientoSecuencia);
    let expiresOn = own ? isoFromDgiiDate((own.document as any).Encabezado.IdDoc.FechaVencimientoSecuencia) : latest;
    if (expiresOn < today) {
      if (renewExpired) {
        const renewed = `${Number(today.slice(0, 4)) + 1}-12-31`;
        notes.push(`E${tipo}: FechaVencimientoSecuencia ${expiresOn} is past; range registered until ${renewed} (--renew-expired), the signed e-CF carries that date`);
        expiresOn = renewed;
      } else notes.push(`E${tipo}: FechaVencimientoSecuencia ${expiresOn} is past (today ${today}); range registered as given, so the service refuses its cases (--renew-expired to register it until next year)`);
    }
    // Room above the set's numbers, so registering it again after a run stays valid (a range
    // must end after the numbers already used).
    return { tipo, rangeFrom: 1, rangeTo: Math.min(max + 1000, 9_999_999_999), expiresOn };
  });
}

interface Outcome {
  c: Case;
  estado: string;
  path: string;
  mensajes: string[];
  xmlFile?: string;
  ok: boolean;
}

function problemLines(status: number, p: ProblemBody | undefined): string[] {
  const lines = [`HTTP ${status} ${p?.code ?? ""}: ${p?.detail ?? p?.title ?? ""}`.trim()];
  for (const e of p?.errors ?? []) if (e.severity !== "warning") lines.push(`${e.code} ${e.path}: ${e.message}`);
  return lines;
}

async function settle(client: Awaited<ReturnType<typeof issuingClient>>, answer: IssueAnswer): Promise<IssueAnswer> {
  // The request itself polls briefly; the queue finishes the rest. Ask again for up to 30 s.
  let current = answer;
  for (let i = 0; i < 30 && !SETTLED.has(current.estado); i++) {
    await new Promise((r) => setTimeout(r, 1000));
    current = await client.status(current.encf);
  }
  return current;
}

async function sandboxKinds(sandboxUrl: string | undefined, rnc: string, encf: string): Promise<string[] | undefined> {
  if (!sandboxUrl) return undefined;
  try {
    const res = await fetch(`${sandboxUrl}/__sandbox/received?rnc=${rnc}&encf=${encf}`, { signal: AbortSignal.timeout(3000) });
    if (!res.ok) return undefined;
    const entries = (await res.json()) as { kind: string; outcome?: { estado?: string } }[];
    return entries.map((e) => e.kind);
  } catch {
    return undefined;
  }
}

function printTable(outcomes: Outcome[]): void {
  const rows = outcomes.map((o) => [o.c.caso, o.c.encf, o.path, o.estado, o.mensajes.join(" | ") || "-"]);
  const head = ["CasoPrueba", "e-NCF", "via", "estado", "mensajes (DGII / service)"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i < 4 ? r[i]!.length : 0))));
  const line = (r: string[]) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join("  ");
  console.log(line(head));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const { set, cases, sheet } = loadCases(options);
  if (!cases.length) throw new Error("the test set has no rows");
  const first = set.rows[0]!;
  const rnc = cellOf(set, first, "RNCEmisor")!;
  const notes: string[] = [];
  const ranges = rangesFor(set, cases, options.renewExpired, notes);
  console.log(`Test set ${basename(options.file)} (sheet ${sheet}): ${cases.length} case(s), issuer RNC ${rnc}`);

  let stack: LocalStack | undefined;
  let workerUrl = options.worker;
  let sandboxUrl = options.sandbox;
  let adminSecret = process.env.ADMIN_SECRET;
  if (!workerUrl && (await answers(`${DEFAULT_WORKER}/health`))) {
    workerUrl = DEFAULT_WORKER;
    sandboxUrl ??= DEFAULT_SANDBOX;
  }
  if (workerUrl) {
    adminSecret ??= devVar("ADMIN_SECRET");
    console.log(`Worker ${workerUrl} (already running)`);
  } else {
    console.log("No worker on 127.0.0.1:8787: starting wrangler dev and the DGII sandbox…");
    mkdirSync(options.out, { recursive: true });
    const logFile = join(options.out, "worker.log");
    writeFileSync(logFile, "");
    stack = await startLocalStack({ pollDelaysMs: "300,600,1200,2400", logFile });
    workerUrl = stack.workerUrl;
    sandboxUrl = stack.sandboxUrl;
    adminSecret = stack.adminSecret;
    console.log(`Worker ${workerUrl}, DGII sandbox ${sandboxUrl} (stopped at the end; worker output in ${logFile})`);
  }

  let keyId: string | undefined;
  try {
    const certificate = options.p12
      ? { p12: new Uint8Array(readFileSync(options.p12)), password: process.env.CERTIFY_P12_PASSWORD ?? "" }
      : { p12: generateTestP12({ commonName: cellOf(set, first, "RazonSocialEmisor") ?? rnc, serialNumber: rnc, password: CERTIFICATE_PASSWORD }) as Uint8Array, password: CERTIFICATE_PASSWORD };
    const setup = await setUpIssuer(
      workerUrl,
      adminSecret!,
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
    );
    keyId = setup.keyId;
    console.log(`Issuer ${rnc} ${setup.created ? "created" : "found"} (${setup.companyId}); ${options.p12 ? "its certificate" : "a generated test certificate"} uploaded; ranges ${ranges.map((r) => `E${r.tipo} 1-${r.rangeTo} until ${r.expiresOn}`).join(", ")}`);
    for (const n of [...notes, ...setup.rangeNotes]) console.log(`Note: ${n}`);
    const client = await issuingClient(workerUrl, setup.apiKey, setup.apiSecret);
    mkdirSync(options.out, { recursive: true });

    const outcomes: Outcome[] = [];
    for (const c of cases) {
      const sent = await client.issue(c.document);
      const o: Outcome = { c, estado: "Refused", path: c.rfce ? "RFCE" : "ECF", mensajes: [...c.warnings], ok: false };
      if (sent.answer) {
        const a = await settle(client, sent.answer);
        o.estado = a.estado + (a.reenviado ? " (resent)" : "");
        o.mensajes.push(...a.mensajes.map((m) => (m.codigo ? `${m.codigo} ${m.valor}` : m.valor)));
        const xml = await client.signedXml(c.encf);
        o.xmlFile = join(options.out, `${rnc}${c.encf}.xml`);
        writeFileSync(o.xmlFile, xml);
        o.ok = a.estado === "Aceptado" || a.estado === "Aceptado Condicional";
        // The RFCE path: the worker's timbre is the consumer-summary form, and the sandbox
        // received an RFCE (not the full e-CF) for this e-NCF.
        const viaRfce = a.urlTimbre.includes("consultatimbrefc");
        const kinds = await sandboxKinds(sandboxUrl, rnc, c.encf);
        const sandboxSaw = kinds ? (kinds.includes("rfce") ? "RFCE" : kinds.includes("ecf") ? "ECF" : "nothing") : undefined;
        o.path = viaRfce ? "RFCE" : "ECF";
        if (sandboxSaw && sandboxSaw !== o.path) o.mensajes.push(`sandbox received ${sandboxSaw}`);
        if (c.rfce !== viaRfce || (sheet === "RFCE" && !viaRfce)) {
          o.ok = false;
          o.mensajes.push(`expected the ${c.rfce ? "RFCE" : "ECF"} path`);
        }
      } else {
        o.mensajes.push(...problemLines(sent.status, sent.problem));
      }
      outcomes.push(o);
    }

    console.log("");
    printTable(outcomes);
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.estado, (counts.get(o.estado) ?? 0) + 1);
    const good = outcomes.filter((o) => o.ok).length;
    console.log(`\n${good}/${outcomes.length} accepted · ${[...counts].map(([k, v]) => `${k}: ${v}`).join(", ")} · signed XML in ${options.out}`);
    return good === outcomes.length ? 0 : 1;
  } finally {
    if (keyId) await revokeKey(workerUrl, adminSecret!, keyId).catch(() => {});
    if (stack) await stack.stop();
  }
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
