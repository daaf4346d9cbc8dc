// One certification run per issuer: who applies and how (alone, as a provider, or as a provider's
// client on the short path), the receiver URLs it registers, and where each of DGII's 14 steps
// stands. Kept whole in D1 (certification_runs), so a restarted worker resumes where it was.
import { eq } from "drizzle-orm";
import { certificationRuns } from "../db/certification-tables.ts";
import { database } from "../db/client.ts";
import { SHORT_PATH_SKIPS, STEPS, type StepId } from "./steps.ts";

export interface ReceiverUrls {
  recepcion: string;
  aprobacionComercial: string;
  autenticacion: string;
}

export type StepState = "pending" | "completed" | "skipped";

export interface RunStep {
  id: StepId;
  state: StepState;
  /** What DGII (or the check that completed it) last said, in DGII's words. */
  detail?: string;
  completedAt?: string;
}

/** A taxpayer alone; a software house certifying itself as provider; a provider's client. */
export type Applicant = "taxpayer" | "provider" | "provider-client";

export interface CertificationRun {
  applicant: Applicant;
  /** The certified provider whose deployment this is (provider-client only). */
  providerRnc?: string;
  representative: { cedula: string; name: string };
  ecfTypes: string[];
  receiverUrls: ReceiverUrls;
  steps: RunStep[];
  startedAt: string;
  updatedAt: string;
}

export type RunInput = Pick<
  CertificationRun,
  "applicant" | "providerRnc" | "representative" | "ecfTypes" | "receiverUrls"
>;

export function newRun(input: RunInput, now: Date): CertificationRun {
  const shortPath = input.applicant === "provider-client";
  return {
    ...input,
    steps: STEPS.map(({ id }) => ({ id, state: shortPath && SHORT_PATH_SKIPS.includes(id) ? "skipped" : "pending" })),
    startedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** The step to take now: the first one neither completed nor skipped (undefined: certified). */
export function currentStep(run: CertificationRun): RunStep | undefined {
  return run.steps.find((step) => step.state === "pending");
}

export type StepCompletion = { ok: true; run: CertificationRun } | { ok: false; current: StepId | null };

/** `id` completed with DGII's words; only the current step may be, so the order always holds. */
export function completeStep(run: CertificationRun, id: StepId, detail: string | undefined, now: Date): StepCompletion {
  const current = currentStep(run);
  if (current?.id !== id) return { ok: false, current: current?.id ?? null };
  const at = now.toISOString();
  const steps = run.steps.map((step) =>
    step.id === id ? { ...step, state: "completed" as const, completedAt: at, ...(detail ? { detail } : {}) } : step,
  );
  return { ok: true, run: { ...run, steps, updatedAt: at } };
}

/** A step's latest word from DGII without completing it (a Rechazado, a failed delivery). */
export function noteStep(run: CertificationRun, id: StepId, detail: string, now: Date): CertificationRun {
  return {
    ...run,
    steps: run.steps.map((step) => (step.id === id ? { ...step, detail } : step)),
    updatedAt: now.toISOString(),
  };
}

export async function loadRun(db: D1Database, companyId: string): Promise<CertificationRun | undefined> {
  const [row] = await database(db)
    .select({ state: certificationRuns.state })
    .from(certificationRuns)
    .where(eq(certificationRuns.companyId, companyId));
  return row ? (JSON.parse(row.state) as CertificationRun) : undefined;
}

export async function saveRun(db: D1Database, companyId: string, run: CertificationRun): Promise<void> {
  const state = JSON.stringify(run);
  await database(db)
    .insert(certificationRuns)
    .values({ companyId, state, updatedAt: run.updatedAt })
    .onConflictDoUpdate({ target: certificationRuns.companyId, set: { state, updatedAt: run.updatedAt } });
}
