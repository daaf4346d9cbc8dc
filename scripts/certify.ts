#!/usr/bin/env node
// `npm run certify -- <file.csv> [--out dir] [--worker URL] [--sandbox URL] [--p12 file] [--renew-expired]`
//
// Runs a DGII certification test set ("Pruebas de Datos", sheet ECF or RFCE, as CSV) through the
// issuing API (certify-lib/run.ts) and prints a per-case table; the signed XML go to --out.
//
// Target: --worker URL; else the worker of `npm start` on 127.0.0.1:8787 if it answers; else a
// private wrangler dev + DGII sandbox started (and stopped) by this script.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { walkCertification } from "./certify-lib/certification.ts";
import { certify, formatTable } from "./certify-lib/run.ts";
import { startLocalStack, type LocalStack } from "./local-stack.ts";
import { answers, devVar, root } from "./lib.mjs";

const DEFAULT_WORKER = "http://127.0.0.1:8787";
const DEFAULT_SANDBOX = "http://127.0.0.1:8788";

interface Options {
  file: string;
  /** --walk: the approvals sheet (ACEECF) next to the ECF sheet; all 14 steps against the sandbox. */
  walk?: string;
  out: string;
  worker?: string;
  sandbox?: string;
  renewExpired: boolean;
  p12?: string;
  /** --representative "cédula,Name" for --walk. */
  representative?: string;
}

function readOptions(args: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        out: { type: "string" },
        worker: { type: "string" },
        sandbox: { type: "string" },
        p12: { type: "string" },
        "renew-expired": { type: "boolean", default: false },
        walk: { type: "boolean", default: false },
        representative: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error((error as Error).message);
    usage(2);
  }
  const { values: o, positionals } = parsed;
  if (o.help) usage(0);
  if (positionals.length !== (o.walk ? 2 : 1)) usage(2);
  return {
    file: resolve(positionals[0]!),
    ...(o.walk ? { walk: resolve(positionals[1]!) } : {}),
    ...(o.representative ? { representative: o.representative } : {}),
    out: resolve(o.out ?? join(root, "certify-out")),
    renewExpired: o["renew-expired"],
    ...(o.worker ? { worker: o.worker.replace(/\/+$/, "") } : {}),
    ...(o.sandbox ? { sandbox: o.sandbox.replace(/\/+$/, "") } : {}),
    ...(o.p12 ? { p12: resolve(o.p12) } : {}),
  };
}

function usage(code: number): never {
  console.log(`Usage: npm run certify -- <test-set.csv> [--out dir] [--worker URL] [--sandbox URL] [--p12 file] [--renew-expired]
       npm run certify -- --walk <ECF.csv> <ACEECF.csv> [--representative "cédula,Name"] [--out dir] [--worker URL] [--sandbox URL]

  <test-set.csv>   a DGII "Pruebas de Datos" sheet as CSV: ECF, or RFCE (then the sibling __ECF.csv is read)
  --out dir        where the signed XML go (default certify-out/)
  --worker URL     the worker to use (default ${DEFAULT_WORKER} if it answers, else a private one is started)
  --sandbox URL    the DGII sandbox that worker talks to, to confirm RFCE receptions (default ${DEFAULT_SANDBOX})
  --p12 file.p12   upload this certificate (password in CERTIFY_P12_PASSWORD) instead of a generated test one
  --renew-expired  register a range whose FechaVencimientoSecuencia is already past until 31-12 of next
                   year (the signed e-CF then carries that date); by default it is registered as given
                   and the service refuses its cases
  --walk           a new issuer through all 14 certification steps against the DGII sandbox (its portal
                   playing the person's acts), the worker's run (/company/certification) following each`);
  process.exit(code);
}

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
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
    stack = await startLocalStack({ pollDelaysMs: "300,600,1200,2400", logFile, frozen: true });
    workerUrl = stack.workerUrl;
    sandboxUrl = stack.sandboxUrl;
    adminSecret = stack.adminSecret;
    console.log(`Worker ${workerUrl}, DGII sandbox ${sandboxUrl} (stopped at the end; worker output in ${logFile})`);
  }
  try {
    if (options.walk) return await walk(options, { workerUrl, adminSecret: adminSecret!, sandboxUrl: sandboxUrl! });
    const { outcomes } = await certify(
      { workerUrl, adminSecret: adminSecret!, ...(sandboxUrl ? { sandboxUrl } : {}) },
      {
        file: options.file,
        out: options.out,
        renewExpired: options.renewExpired,
        ...(options.p12
          ? {
              p12: {
                bytes: new Uint8Array(readFileSync(options.p12)),
                password: process.env.CERTIFY_P12_PASSWORD ?? "",
              },
            }
          : {}),
        log: (line) => console.log(line),
      },
    );
    console.log(`\n${formatTable(outcomes)}`);
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.estado, (counts.get(o.estado) ?? 0) + 1);
    const good = outcomes.filter((o) => o.ok).length;
    console.log(
      `\n${good}/${outcomes.length} accepted · ${[...counts].map(([k, v]) => `${k}: ${v}`).join(", ")} · signed XML in ${options.out}`,
    );
    return good === outcomes.length ? 0 : 1;
  } finally {
    if (stack) await stack.stop();
  }
}

async function walk(options: Options, target: { workerUrl: string; adminSecret: string; sandboxUrl: string }) {
  const [cedula, ...name] = (options.representative ?? "00112345678,REPRESENTANTE DE PRUEBA").split(",");
  const result = await walkCertification(target, {
    ecfSheet: options.file,
    approvalsSheet: options.walk!,
    out: options.out,
    representative: { cedula: cedula!.trim(), name: name.join(",").trim() },
    productionOrigin: "https://ecf.example.do",
    log: (line) => console.log(line),
  });
  for (const step of result.run.steps)
    console.log(`${String(step.number).padStart(2)} ${step.state.padEnd(9)} ${step.name}`);
  console.log(`\nCertified: ${result.run.certified} · signed postulación and declaración in ${options.out}`);
  return result.run.certified ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
