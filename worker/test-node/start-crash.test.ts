// Recovery with nobody asking, as a new user would try it: `npm start` (node scripts/start.mjs) on
// private ports, 10 clients issue, the worker's workerd is killed with SIGKILL mid-load,
// then everything `npm start` started is killed too and it is started again on the same state.
// Within 2 minutes every receipt the ledger holds is final (the issuer objects' alarms transmit
// what was recorded before the crash), and the DGII sandbox, restarted on its journal, received
// each e-NCF exactly once.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { freePort } from "../../scripts/lib.mjs";
import { commandOf, descendants } from "./support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const state = mkdtempSync(join(tmpdir(), "ecf-start-crash-"));
const FINAL = new Set(["Aceptado", "Aceptado Condicional", "Rechazado"]);
let start: ChildProcess | undefined;
let output = "";

/** Starts `npm start` and resolves with its worker and sandbox URLs once it says it is running. */
async function npmStart(ports: { worker: number; sandbox: number; inspector: number }) {
  output = "";
  start = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(ports.worker),
      SANDBOX_PORT: String(ports.sandbox),
      INSPECTOR_PORT: String(ports.inspector),
      ECF_STATE_DIR: state,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  start.stdout!.on("data", (d) => (output += d));
  start.stderr!.on("data", (d) => (output += d));
  const until = Date.now() + 240_000;
  while (!output.includes("Press Ctrl-C to stop.")) {
    if (start.exitCode !== null) throw new Error(`npm start exited (${start.exitCode}):\n${output}`);
    if (Date.now() > until) throw new Error(`npm start printed no URLs within 240 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    worker: output.match(/API worker\s+(http:\S+)/)![1]!,
    sandbox: output.match(/DGII sandbox\s+(http:\S+)/)![1]!,
  };
}

/** SIGKILL to `npm start` and every process under it, at once. */
function killAll(): void {
  if (!start?.pid) return;
  for (const pid of [start.pid, ...descendants(start.pid)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

afterAll(() => {
  killAll();
  rmSync(state, { recursive: true, force: true });
});

async function login(base: string): Promise<Record<string, string>> {
  const { company } = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8")) as {
    company: { apiKey: string; apiSecret: string };
  };
  const answer = await fetch(`${base}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(company),
  });
  const { token } = (await answer.json()) as { token: string };
  return { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
}

/** An issuing request: E31 (sent to DGII with a track id) and E32 under the threshold (its RFCE) in turn. */
function request(n: number): string {
  const body = structuredClone(makeEcf(n % 2 ? "31" : "32", { sequence: n + 1 })) as Record<string, any>;
  delete body.Encabezado.Emisor;
  delete body.Encabezado.IdDoc.eNCF;
  delete body.FechaHoraFirma;
  return JSON.stringify(body);
}

/** Every receipt the ledger holds, from the e-NCF report (all months, every page). */
async function ledgerReceipts(base: string, auth: Record<string, string>): Promise<{ encf: string; estado: string }[]> {
  const rows: { encf: string; estado: string }[] = [];
  let cursor: string | undefined;
  do {
    const url = `${base}/reports/encf?pageSize=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = (await (await fetch(url, { headers: auth })).json()) as {
      items: { encf: string; estado: string }[];
      nextCursor: string | null;
    };
    rows.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

describe("npm start after a crash mid-load", () => {
  it("10 clients, workerd killed mid-load, restarted: every receipt final within 2 min, each e-NCF received by the sandbox once", async () => {
    const ports = { worker: await freePort(), sandbox: await freePort(), inspector: await freePort() };
    let urls = await npmStart(ports);
    let auth = await login(urls.worker);

    // 10 clients issue; the worker's workerd is killed with SIGKILL 10 s in (later if fewer than
    // 10 receipts were answered by then: a busy machine is slow), and they go on 10 s after it.
    const answered: string[] = [];
    let failed = 0;
    let n = 0;
    let until = Number.POSITIVE_INFINITY;
    const client = async () => {
      while (Date.now() < until) {
        try {
          const response = await fetch(`${urls.worker}/fe/recepcion/ecf`, {
            method: "POST",
            headers: auth,
            body: request(n++),
            signal: AbortSignal.timeout(10_000),
          });
          if (response.ok) answered.push(((await response.json()) as { encf: string }).encf);
          else failed++;
        } catch {
          failed++;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const crash = (async () => {
      await new Promise((r) => setTimeout(r, 10_000));
      for (let waited = 0; answered.length < 10 && waited < 60_000; waited += 250)
        await new Promise((r) => setTimeout(r, 250));
      until = Date.now() + 10_000;
      const workerd = descendants(start!.pid!).filter((pid) => commandOf(pid) === "workerd");
      expect(workerd.length).toBeGreaterThan(0);
      for (const pid of workerd) process.kill(pid, "SIGKILL");
    })();
    await Promise.all([...Array.from({ length: 10 }, client), crash]);
    expect(answered.length).toBeGreaterThanOrEqual(10);
    expect(failed).toBeGreaterThan(0); // the crash did cut requests off

    // Everything npm start runs dies too (the sandbox mid-journal included), then it starts again.
    killAll();
    await new Promise((r) => setTimeout(r, 1000));
    urls = await npmStart(ports);
    auth = await login(urls.worker);

    // Nobody asks: within 2 minutes every receipt the ledger holds is final.
    let receipts = await ledgerReceipts(urls.worker, auth);
    const atRestart = receipts.filter((r) => !FINAL.has(r.estado)).length;
    const deadline = Date.now() + 120_000;
    while (receipts.some((r) => !FINAL.has(r.estado)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      receipts = await ledgerReceipts(urls.worker, auth);
    }
    const pending = receipts.filter((r) => !FINAL.has(r.estado));
    expect(pending, `not final after 2 minutes: ${JSON.stringify(pending.slice(0, 10))}`).toEqual([]);
    console.log(
      `${answered.length} answered, ${failed} cut off, ${receipts.length} in the ledger, ${atRestart} not final at the restart`,
    );
    // Every answered receipt is in the ledger; none was lost.
    const held = new Set(receipts.map((r) => r.encf));
    expect(answered.filter((encf) => !held.has(encf))).toEqual([]);

    // The sandbox, restarted on its journal, received each e-NCF exactly once (e-CF or RFCE).
    const received = (await (await fetch(`${urls.sandbox}/__sandbox/received`)).json()) as {
      kind: string;
      encf: string | null;
      trackId: string | null;
      outcome: { httpStatus?: number } | null;
    }[];
    const copies = new Map<string, number>();
    const taken = (entry: (typeof received)[number]) =>
      (entry.kind === "ecf" && entry.trackId !== null) || (entry.kind === "rfce" && !entry.outcome?.httpStatus);
    for (const entry of received) if (taken(entry)) copies.set(entry.encf!, (copies.get(entry.encf!) ?? 0) + 1);
    expect([...copies].filter(([, count]) => count !== 1)).toEqual([]);
    expect(new Set(copies.keys())).toEqual(held);
  }, 480_000);
});
