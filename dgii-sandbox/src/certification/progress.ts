// The steps DGII judges from what the taxpayer sends to certecf: the data sets, the simulation
// and the approval sent back in the communication test. Progress is read from what the sandbox
// received, so it is exactly what DGII saw; a Rechazado since the step began restarts its set.
import type { SandboxContext } from "../context.ts";
import type { Outcome } from "../outcome.ts";
import type { SandboxState } from "../state.ts";
import { complete, currentStep, type Postulacion, restart } from "./postulacion.ts";

interface Judged {
  encf: string;
  tipo: string;
  receivedAt: Date;
  outcome: Outcome;
  via: "ecf" | "rfce";
}

/** Every judged e-CF and RFCE of `rnc` in certecf received at or after `since`, oldest first. */
function judgedSince(state: SandboxState, rnc: string, since: Date): Judged[] {
  const out: Judged[] = [];
  for (const r of state.receptions.values()) {
    if (r.env !== "certecf" || r.summary.rncEmisor !== rnc || r.receivedAt < since || !r.outcome) continue;
    out.push({ encf: r.summary.encf, tipo: r.summary.tipo, receivedAt: r.receivedAt, outcome: r.outcome, via: "ecf" });
  }
  for (const r of state.rfce) {
    if (r.env !== "certecf" || r.summary.rncEmisor !== rnc || r.receivedAt < since) continue;
    out.push({ encf: r.summary.encf, tipo: "32", receivedAt: r.receivedAt, outcome: r.outcome, via: "rfce" });
  }
  return out.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
}

const isAccepted = (j: Judged) => j.outcome.codigo === 1 || j.outcome.codigo === 4;

/** When DGII had all it needed: the last of the documents that completed the step (the next step counts from then). */
const lastOf = (dates: Date[]) => new Date(Math.max(...dates.map((d) => d.getTime())));

function distinct(judged: Judged[]): number {
  return new Set(judged.map((j) => j.encf.toUpperCase())).size;
}

/** The set restarted after each Rechazado, then what still counts; `postulacion` carries the restarts. */
function afterRejections(state: SandboxState, p: Postulacion): { p: Postulacion; counted: Judged[] } {
  for (;;) {
    const step = currentStep(p)!;
    const counted = judgedSince(state, p.rnc, new Date(step.desde!));
    const rejection = counted.findLast((j) => j.outcome.codigo === 2);
    if (!rejection) return { p, counted };
    const why = rejection.outcome.mensajes.map((m) => m.valor).join("; ");
    p = restart(
      p,
      step.id,
      rejection.receivedAt,
      `Rechazado ${rejection.encf}: ${why}. El set de pruebas se reinicia.`,
    );
  }
}

/**
 * The postulación after looking at what certecf received: restarted, completed, or as it was.
 * Returns the same object when nothing changed, so the caller records only real changes. A step is
 * completed as of its last document, not of the moment someone looked: what came after counts for the next.
 */
export function judgeProgress(state: SandboxState, p: Postulacion): Postulacion {
  const step = currentStep(p);
  if (!step?.desde) return p;
  switch (step.id) {
    case "pruebas-datos-ecf": {
      const { p: next, counted } = afterRejections(state, p);
      const accepted = counted.filter(isAccepted);
      const ecf = distinct(accepted.filter((j) => j.via === "ecf"));
      const rfce = distinct(accepted.filter((j) => j.via === "rfce"));
      if (accepted.length && ecf >= p.set.ecf && rfce >= p.set.rfce)
        return complete(
          next,
          step.id,
          lastOf(accepted.map((j) => j.receivedAt)),
          `Aceptados ${ecf} e-CF y ${rfce} RFCE`,
        );
      return next;
    }
    case "simulacion": {
      const { p: next, counted } = afterRejections(state, p);
      const accepted = counted.filter(isAccepted);
      const types = new Set(accepted.map((j) => j.tipo));
      const missing = p.tiposeCF.filter((t) => !types.has(t));
      if (!missing.length)
        return complete(
          next,
          step.id,
          lastOf(accepted.map((j) => j.receivedAt)),
          `Simulación aceptada: tipos ${p.tiposeCF.join(", ")}`,
        );
      return next;
    }
    case "pruebas-datos-aprobacion-comercial": {
      const approvals = approvalsSince(state, p.rnc, new Date(step.desde));
      if (approvals.size >= p.set.acecf)
        return complete(
          p,
          step.id,
          lastOf([new Date(step.desde), ...approvals.values()]),
          `Recibidas ${approvals.size} aprobaciones comerciales`,
        );
      return p;
    }
    case "aprobacion-comercial": {
      const sent = p.ecfEnviado;
      // The taxpayer may approve DGII's e-CF as soon as it received it, before this step opened.
      const back = sent && approvalsSince(state, p.rnc, new Date(0)).get(sent.encf.toUpperCase());
      return back
        ? complete(p, step.id, lastOf([new Date(step.desde), back]), `Aprobación comercial de ${sent.encf} recibida`)
        : p;
    }
    default:
      return p;
  }
}

/** e-NCFs `rnc` approved or rejected as buyer in certecf since `since`, with when each arrived. */
function approvalsSince(state: SandboxState, rnc: string, since: Date): Map<string, Date> {
  const out = new Map<string, Date>();
  for (const a of state.approvals)
    if (a.env === "certecf" && a.summary.rncComprador === rnc && a.receivedAt >= since)
      out.set(a.summary.encf.toUpperCase(), a.receivedAt);
  return out;
}

/**
 * e-CF DGII itself issued to a taxpayer in certification, which its approvals may name although
 * certecf never received them: the approvals sheet's invoices while that step is open, and the
 * e-CF of the communication test.
 */
export function issuedByDgiiForCertification(ctx: SandboxContext, rncComprador: string, encf: string): boolean {
  const p = refreshed(ctx, rncComprador);
  if (!p) return false;
  if (currentStep(p)?.id === "pruebas-datos-aprobacion-comercial") return true;
  return p.ecfEnviado?.encf.toUpperCase() === encf.toUpperCase();
}

/** The postulación after DGII looked at what certecf received, recorded when that changed something. */
export function refreshed(ctx: SandboxContext, rnc: string): Postulacion | undefined {
  const stored = ctx.state.postulaciones.get(rnc);
  if (!stored) return undefined;
  let p = stored;
  for (let next = judgeProgress(ctx.state, p); next !== p; next = judgeProgress(ctx.state, p)) p = next;
  if (p !== stored) ctx.state.record({ t: "postulacion", postulacion: p });
  return p;
}
