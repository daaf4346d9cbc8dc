// A till's backlog in one request (POST /devices/receipts/batch): every receipt checked as a single
// upload checks it, admitted by the issuer object in one RPC, looked up and recorded in one RPC
// per month object, then answered one by one. Nothing is sent to DGII here: the month object's
// alarm transmits what was recorded, as it does for a receipt whose request died, so a request
// costs storage round trips only and a backlog of hundreds goes up in seconds.
import { drMonth } from "@ecf/shared";
import { ApiProblem } from "../errors/problem.ts";
import { problemOf } from "../errors/problem-of.ts";
import type { Company } from "../db/tables.ts";
import { recordForBackground } from "../issuing/record.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import type { Receipt } from "../ledger/rows.ts";
import type { Device } from "./auth.ts";
import { deviceAnswer, type ReceiptAnswer } from "./submit.ts";
import {
  admission,
  checkDeviceReceipt,
  encfAlreadyUsed,
  encfVoided,
  notLeased,
  type CheckedReceipt,
} from "./uploads.ts";

/** Receipts per batch: about 1 MB of signed XML, well inside the body limit and one RPC's size. */
export const MAX_BATCH_RECEIPTS = 100;

/** What became of one receipt of the batch, at its index. */
export type BatchOutcome =
  | { encf: string | null; answer: ReceiptAnswer; replayed: boolean }
  | { encf: string | null; problem: ApiProblem };

/** A receipt that was not recorded because of a failure on our side: the till sends it again. */
const notRecorded = (detail: string) =>
  new ApiProblem("internal_error", { detail: `${detail} Send this receipt again.` });

/** The problem with its paths pointing into the batch (`/receipts/3/xml`); it always names one. */
function at(index: number, problem: ApiProblem): ApiProblem {
  const prefix = `/receipts/${index}`;
  const errors = problem.init.errors?.length
    ? problem.init.errors
    : [{ path: "/xml", code: problem.code, message: problem.message }];
  return new ApiProblem(problem.code, {
    ...problem.init,
    errors: errors.map((e) => ({ ...e, path: `${prefix}${e.path}` })),
  });
}

/** Outcomes by index, filled as the batch goes; paths stay relative to one upload (`/xml`) until the end. */
type Outcomes = (BatchOutcome | undefined)[];
/** A checked receipt at its index in the batch. */
type Entry = { index: number; receipt: CheckedReceipt };

function refuse(outcomes: Outcomes, index: number, encf: string | null, problem: ApiProblem): void {
  outcomes[index] = { encf, problem };
}

/**
 * The batch, in order. Refusals (a bad signature, a number outside the device's leases, a
 * different document under a used e-NCF) are the receipt's own and never stop the others. A
 * failure on our side stops the recording there: the receipts after it are not recorded (they
 * are answered with a 500 item), so the till, which resends from the first unsettled receipt,
 * keeps the server's order equal to its own. A retried batch records nothing twice: each
 * receipt already held is answered as it stands, with `replayed`.
 */
export async function acceptDeviceReceiptBatch(
  env: Env,
  company: Company,
  device: Device,
  xmls: string[],
): Promise<BatchOutcome[]> {
  const outcomes: Outcomes = xmls.map(() => undefined);
  const candidates = await checkBatch(env, company, device, xmls, outcomes);
  const placed = await admitToLeases(env, company, device, candidates, outcomes);
  const held = await heldReceipts(env, company, placed);
  const { fresh, copies } = sortOutHeld(placed, held, outcomes);
  await recordFresh(env, company, fresh, outcomes);
  // A copy of an e-NCF earlier in the batch shares the first one's outcome, now settled.
  for (const { index, of } of copies) {
    const first = outcomes[of]!;
    outcomes[index] = "answer" in first ? { ...first, replayed: true } : first;
  }
  return outcomes.map((outcome, index) => {
    const settled = outcome ?? {
      encf: null,
      problem: notRecorded("Not recorded: an earlier receipt of this batch failed."),
    };
    return "problem" in settled ? { ...settled, problem: at(index, settled.problem) } : settled;
  });
}

/**
 * The checks that need no ledger, all at once (CPU and, rarely, D1 for a replaced certificate).
 * Returns the receipts that passed, up to the first failure on our side.
 */
async function checkBatch(
  env: Env,
  company: Company,
  device: Device,
  xmls: string[],
  outcomes: Outcomes,
): Promise<Entry[]> {
  const checked = await Promise.all(
    xmls.map((xml) =>
      checkDeviceReceipt(env, company, device, xml).then(
        (receipt) => ({ receipt }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
  let stop = checked.length;
  for (const [index, result] of checked.entries()) {
    if (!("error" in result)) continue;
    // The e-NCF as written, if any, so the answer names the receipt it refuses.
    const encf = /<eNCF>(E\d{12})<\/eNCF>/.exec(xmls[index]!)?.[1] ?? null;
    const problem = problemOf(result.error);
    if (problem) refuse(outcomes, index, encf, problem);
    else {
      console.error(`batch upload: receipt ${index} could not be checked`, result.error);
      refuse(outcomes, index, encf, notRecorded("It could not be checked."));
      stop = Math.min(stop, index);
    }
  }
  return checked.flatMap((result, index) =>
    index < stop && "receipt" in result ? [{ index, receipt: result.receipt }] : [],
  );
}

/** One RPC: each number inside one of this device's leases, counted once, placed in its month. */
async function admitToLeases(
  env: Env,
  company: Company,
  device: Device,
  candidates: Entry[],
  outcomes: Outcomes,
): Promise<Entry[]> {
  const admitted = candidates.length
    ? await issuerLedger(env, company.id)
        .leases()
        .admitDeviceReceipts(
          device.id,
          candidates.map((c) => admission(c.receipt)),
          drMonth(new Date()),
        )
    : [];
  const placed: Entry[] = [];
  for (const [k, { index, receipt }] of candidates.entries()) {
    const verdict = admitted[k]!;
    if (!verdict.leased) refuse(outcomes, index, receipt.encf, notLeased(receipt.encf));
    else if (verdict.voided) refuse(outcomes, index, receipt.encf, encfVoided(receipt.encf));
    // Placed in another month already: a different document under that e-NCF.
    else if (verdict.month !== receipt.month) refuse(outcomes, index, receipt.encf, encfAlreadyUsed(receipt.encf));
    else placed.push({ index, receipt });
  }
  return placed;
}

/** One RPC per month: what is held already is a replay (same bytes) or a conflict. */
async function heldReceipts(env: Env, company: Company, placed: Entry[]): Promise<Map<string, Receipt>> {
  const months = [...new Set(placed.map((p) => p.receipt.month))];
  const held = new Map<string, Receipt>();
  const found = await Promise.all(
    months.map((month) =>
      receiptMonth(env, company.id, month)
        .receipts()
        .receiptsByEncf(placed.filter((p) => p.receipt.month === month).map((p) => p.receipt.encf)),
    ),
  );
  for (const receipt of found.flat()) held.set(receipt.encf, receipt);
  return held;
}

/**
 * Answers what is held already (a replay, or a conflict) and returns what is left to record.
 * A later copy of an e-NCF in this same batch waits for the first one's outcome.
 */
function sortOutHeld(
  placed: Entry[],
  held: Map<string, Receipt>,
  outcomes: Outcomes,
): { fresh: Entry[]; copies: { index: number; of: number }[] } {
  const fresh: Entry[] = [];
  const copies: { index: number; of: number }[] = [];
  const firstOf = new Map<string, Entry>();
  for (const entry of placed) {
    const { index, receipt } = entry;
    const existing = held.get(receipt.encf);
    const first = firstOf.get(receipt.encf);
    if (existing) {
      if (existing.documentHash === receipt.xmlSha256)
        outcomes[index] = { encf: receipt.encf, answer: deviceAnswer(existing), replayed: true };
      else refuse(outcomes, index, receipt.encf, encfAlreadyUsed(receipt.encf));
    } else if (first) {
      if (first.receipt.xmlSha256 === receipt.xmlSha256) copies.push({ index, of: first.index });
      else refuse(outcomes, index, receipt.encf, encfAlreadyUsed(receipt.encf));
    } else {
      firstOf.set(receipt.encf, entry);
      fresh.push(entry);
    }
  }
  return { fresh, copies };
}

/** Archived and recorded in order; the month objects' alarms transmit them. */
async function recordFresh(env: Env, company: Company, fresh: Entry[], outcomes: Outcomes): Promise<void> {
  const recorded = fresh.length
    ? await recordForBackground(
        env,
        company,
        fresh.map((f) => ({ xml: f.receipt.xml, documentHash: f.receipt.xmlSha256 })),
      )
    : [];
  for (const [k, { index, receipt }] of fresh.entries()) {
    const result = recorded[k]!;
    if ("failed" in result) {
      console.error(`batch upload: ${receipt.encf} not recorded: ${result.failed}`);
      refuse(outcomes, index, receipt.encf, notRecorded(result.failed));
    } else if (result.existed && result.receipt.documentHash !== receipt.xmlSha256) {
      // Another upload recorded a different document under this e-NCF meanwhile.
      refuse(outcomes, index, receipt.encf, encfAlreadyUsed(receipt.encf));
    } else {
      outcomes[index] = { encf: receipt.encf, answer: deviceAnswer(result.receipt), replayed: result.existed };
    }
  }
}
