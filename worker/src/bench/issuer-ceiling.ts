// Bench-only: one issuer's ceiling measured at the IssuerLedger itself (what bounds its rate), not through
// HTTP, auth, validation and signing. Inside the worker, `callers` concurrent loops share `count`
// operations against ONE issuer's objects through the RPC methods the issuing path uses: `number`
// (the issuer object's one numbering RPC: quota unit, e-NCF, receipt index, Idempotency-Key), and
// for "number+record" then `recordInContingency` on the month object (DGII down: nothing else
// bounds it). The reference, measured the same way, is a no-op RPC to the same issuer object
// (`monthOf("")` answers without touching storage): the RPC's own ceiling. Each run numbers a
// fresh issuer (its own objects), so its e-NCFs must be 1..n, each once. Reached only through
// routes/bench.ts, which is not found unless BENCH_BULK is "1".
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import { unavailableMensajes } from "../issuing/transmit.ts";
import { benchReceipt } from "./bench-month-rows.ts";

export const CEILING_MODES = ["rpc", "number", "number+record"] as const;
export type CeilingMode = (typeof CEILING_MODES)[number];

export interface CeilingSpec {
  mode: CeilingMode;
  /** Operations in all, shared by the callers. */
  count: number;
  /** Concurrent callers, each one operation at a time. */
  callers: number;
}

export interface CeilingRun {
  /** The fresh issuer the run numbered for (its objects hold what it did). */
  companyId: string;
  mode: CeilingMode;
  count: number;
  callers: number;
  /** Inside the worker, from the first call to the last answer. */
  elapsedMs: number;
  perSecond: number;
  /** The e-NCFs numbered (none for "rpc"): distinct, and 1..n with no gap. */
  numbered: number;
  distinct: number;
  gapless: boolean;
}

const TIPO = "32";
const MONTH = "2026-11";
const TODAY = "2026-11-27";
/** Far enough that the month object's alarm never fires during the run (DGII is "down" until then). */
const DOWN_FOR_MS = 3_600_000;

/** A fresh issuer's objects with an authorised E32 range, ready to number from 1. */
async function freshIssuer(env: Env): Promise<string> {
  const companyId = `bench-ceiling-${crypto.randomUUID()}`;
  const range = { rangeFrom: 1, rangeTo: 9_999_999, expiresOn: "2028-12-31" };
  await unwrap(issuerLedger(env, companyId).numbering().putSequence(TIPO, range));
  return companyId;
}

/** One operation of `mode` for operation `i`: the e-NCF it numbered, if it numbers. */
function operation(env: Env, companyId: string, mode: CeilingMode): (i: number) => Promise<string | null> {
  const ledger = issuerLedger(env, companyId);
  const month = receiptMonth(env, companyId, MONTH);
  const mensajes = unavailableMensajes();
  return async (i) => {
    if (mode === "rpc") return ledger.index().monthOf("");
    const answer = await unwrap(
      ledger.numbering().number({
        tipoeCF: TIPO,
        month: MONTH,
        today: TODAY,
        quota: { month: MONTH, limit: 100_000_000 },
        now: new Date().toISOString(),
        idempotency: { key: `bench-${i}`, requestHash: `hash-${i}` },
      }),
    );
    if (!("numbered" in answer)) throw new Error(`bench numbering ${i}: ${JSON.stringify(answer)}`);
    const { encf, number } = answer.numbered;
    if (mode === "number+record") {
      const row = { ...benchReceipt(companyId, "131880001", MONTH, number - 1, TIPO), encf, id: `bench-${encf}` };
      await month.receipts().recordInContingency(row, mensajes, { dgiiDownUntil: Date.now() + DOWN_FOR_MS });
    }
    return encf;
  };
}

/** Runs `spec` against a fresh issuer and says how fast, and whether every e-NCF came once, in order. */
export async function measureIssuerCeiling(env: Env, spec: CeilingSpec): Promise<CeilingRun> {
  const companyId = await freshIssuer(env);
  const run = operation(env, companyId, spec.mode);
  await run(-1); // the objects are awake and migrated before anything is timed
  const encfs: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.callers }, async () => {
      while (next < spec.count) {
        const encf = await run(next++);
        if (encf) encfs.push(encf);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const numbers = encfs.map((e) => Number(e.slice(3))).sort((a, b) => a - b);
  // The warm-up numbered 1 when the mode numbers: the run's are 2..count+1.
  const first = spec.mode === "rpc" ? 1 : 2;
  return {
    companyId,
    ...spec,
    elapsedMs,
    perSecond: (spec.count * 1000) / Math.max(elapsedMs, 0.001),
    numbered: encfs.length,
    distinct: new Set(encfs).size,
    gapless: numbers.every((n, k) => n === first + k),
  };
}
