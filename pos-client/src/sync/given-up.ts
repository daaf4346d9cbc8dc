// Numbers this till took and will never sign (leases.ts: giveUpNumber, recoverLostNumbers) leave a
// gap in the sequence until DGII hears they are void. Each sync round sends them to the server
// (POST /devices/given-up-numbers), which keeps them as proposals until an owner or accountant
// confirms the ANECF; the till sends them again each round until the answer is final, keeps it,
// and the Z report shows every given-up number as "por anular", "anulado" or "no anulado".
import type { PosDatabase } from "../db.ts";
import { UNUSED_ENCF } from "../leases.ts";

/** Settled given-up numbers: e-NCF → what the server answered, and when. */
export const GIVEN_UP_OUTCOMES = "given-up-outcomes";
/** How many numbers one request names (the server's limit). */
export const GIVEN_UP_MAX = 100;
/**
 * Refusals that will not change by asking again, in the cashier's words; any other answer without
 * `anulado` goes again next round.
 */
const FINAL_REFUSALS: Record<string, string> = {
  encf_not_leased: "no pertenece a los bloques de este dispositivo",
  encf_used: "ya tiene un comprobante",
};

export interface GivenUpOutcome {
  estado: "Anulado" | "No anulado";
  /** ISO time the server answered. */
  at: string;
  /** Why the server refused it, in Spanish. */
  message?: string;
}

/** The server's answer for one number (GivenUpResult). */
export interface GivenUpAnswer {
  encf: string;
  anulado: boolean;
  error?: { code: string; message: string };
}

export type VoidGivenUp = (numbers: { tipoeCF: "31" | "32" | "34"; encf: string }[]) => Promise<GivenUpAnswer[]>;

/** One given-up number as the Z report shows it. */
export interface GivenUpNumber {
  encf: string;
  estado: "Por anular" | GivenUpOutcome["estado"];
  message?: string;
}

const tipoOf = (encf: string) => encf.slice(1, 3) as "31" | "32" | "34";

/**
 * Sends the numbers still to void and records the answers: voided, or refused for good, leave the
 * list; the rest wait for the next round. A failed request throws (the round goes on without it).
 */
export async function syncGivenUp(
  db: PosDatabase,
  voidGivenUp: VoidGivenUp,
  now = () => new Date(),
): Promise<{ voided: number; refused: number }> {
  const pending = (await db.setting<string[]>(UNUSED_ENCF)) ?? [];
  const counts = { voided: 0, refused: 0 };
  for (let i = 0; i < pending.length; i += GIVEN_UP_MAX) {
    const chunk = pending.slice(i, i + GIVEN_UP_MAX);
    const answers = await voidGivenUp(chunk.map((encf) => ({ tipoeCF: tipoOf(encf), encf })));
    const settled: Record<string, GivenUpOutcome> = {};
    for (const a of answers) {
      if (!chunk.includes(a.encf)) continue;
      if (a.anulado) settled[a.encf] = { estado: "Anulado", at: now().toISOString() };
      else if (a.error && a.error.code in FINAL_REFUSALS)
        settled[a.encf] = { estado: "No anulado", at: now().toISOString(), message: FINAL_REFUSALS[a.error.code]! };
    }
    await recordOutcomes(db, settled);
    for (const o of Object.values(settled)) counts[o.estado === "Anulado" ? "voided" : "refused"]++;
  }
  return counts;
}

/** Moves the settled numbers from the list to void to the outcomes, in one transaction. */
async function recordOutcomes(db: PosDatabase, settled: Record<string, GivenUpOutcome>): Promise<void> {
  if (!Object.keys(settled).length) return;
  await db.transaction("rw", db.settings, async () => {
    // Read again inside the transaction: a number given up meanwhile stays on the list.
    const unused = (await db.setting<string[]>(UNUSED_ENCF)) ?? [];
    const outcomes = (await db.setting<Record<string, GivenUpOutcome>>(GIVEN_UP_OUTCOMES)) ?? {};
    await db.setSetting(
      UNUSED_ENCF,
      unused.filter((encf) => !(encf in settled)),
    );
    await db.setSetting(GIVEN_UP_OUTCOMES, { ...outcomes, ...settled });
  });
}

/**
 * The given-up numbers a Z report shows: every one still to void, and those settled since `since`
 * (the shift's opening), oldest e-NCF first.
 */
export async function givenUpNumbers(db: PosDatabase, since: string): Promise<GivenUpNumber[]> {
  const pending = (await db.setting<string[]>(UNUSED_ENCF)) ?? [];
  const outcomes = (await db.setting<Record<string, GivenUpOutcome>>(GIVEN_UP_OUTCOMES)) ?? {};
  const settled = Object.entries(outcomes)
    .filter(([, o]) => o.at >= since)
    .map(([encf, o]): GivenUpNumber => ({ encf, estado: o.estado, ...(o.message ? { message: o.message } : {}) }));
  const waiting = pending.map((encf): GivenUpNumber => ({ encf, estado: "Por anular" }));
  return [...waiting, ...settled].sort((a, b) => (a.encf < b.encf ? -1 : 1));
}
