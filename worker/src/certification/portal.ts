// What DGII's portal says of each step. DGII's real portal is a web page for a person, with no
// API: against it the person records each verdict (POST /company/certification/steps/{step}).
// The local DGII sandbox exposes its portal's status as JSON, so there the run reads it itself.
import { ApiProblem } from "../errors/problem.ts";
import { type CertificationRun, completeStep, currentStep, noteStep } from "./run.ts";
import type { StepId } from "./steps.ts";

interface PortalStep {
  id: StepId;
  estado: "pendiente" | "completado" | "no-aplica";
  detalle?: string;
}

/** The sandbox portal's steps for `rnc`; undefined when DGII has no postulación of it yet. */
async function portalSteps(env: Env, rnc: string): Promise<PortalStep[] | undefined> {
  if (env.DGII_TARGET !== "sandbox")
    throw new ApiProblem("conflict", {
      detail:
        "DGII's certification portal has no API: record each step's verdict with POST /company/certification/steps/{step}.",
      errors: [
        {
          path: "",
          code: "portal_without_api",
          message: "Record DGII's verdicts yourself against the real DGII.",
          messageEs: "El portal de DGII no tiene API: registre usted el resultado de cada paso.",
        },
      ],
    });
  const response = await fetch(`${env.DGII_SANDBOX_URL}/portal/certificacion/${rnc}`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status === 404) return undefined;
  if (!response.ok)
    throw new ApiProblem("dgii_unavailable", { detail: `DGII's portal answered HTTP ${response.status}.` });
  return ((await response.json()) as { pasos: PortalStep[] }).pasos;
}

/** The run with every step the portal shows completed, in order, and the portal's word on the current one. */
export async function syncWithPortal(env: Env, rnc: string, run: CertificationRun, now: Date) {
  const steps = await portalSteps(env, rnc);
  if (!steps) return run;
  for (;;) {
    const current = currentStep(run);
    const there = current && steps.find((s) => s.id === current.id);
    if (!current || !there) return run;
    if (there.estado === "pendiente") return there.detalle ? noteStep(run, current.id, there.detalle, now) : run;
    const next = completeStep(
      run,
      current.id,
      there.detalle ?? (there.estado === "no-aplica" ? "No aplica" : undefined),
      now,
    );
    if (!next.ok) return run;
    run = next.run;
  }
}
