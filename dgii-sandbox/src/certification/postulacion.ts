// One taxpayer's certification as DGII's certecf portal keeps it: who applied (the postulación),
// the receiver URLs it registered, the data set DGII expects, and where each of the 14 steps stands.
// Pure data and pure transitions; the routes record each new version as one journaled event.
import { STEPS, type StepId } from "./steps.ts";

/** The three services DGII calls on a taxpayer's receiver (full URLs, as the portal asks for them). */
export interface ReceiverUrls {
  recepcion: string;
  aprobacionComercial: string;
  autenticacion: string;
}

/** How many documents of each sheet DGII's workbook for this RNC holds. */
export interface DataSet {
  ecf: number;
  rfce: number;
  acecf: number;
}

export type StepState = "pendiente" | "completado" | "no-aplica";

export interface StepRecord {
  id: StepId;
  estado: StepState;
  /** ISO instant from which documents count for this step (the previous step's completion, or the last restart). */
  desde?: string;
  completadoEn?: string;
  /** How many times a Rechazado restarted this step's set. */
  reinicios?: number;
  /** The last thing DGII said about the step, in Spanish. */
  detalle?: string;
}

/** A provider certifies itself in full; a provider's client takes the short path. */
export type TipoPostulante = "Contribuyente" | "ProveedorServicios";

export interface Postulacion {
  rnc: string;
  razonSocial: string;
  representante: { cedula: string; nombre: string };
  tipoPostulante: TipoPostulante;
  /** The certified provider whose software a client uses (short path). */
  rncProveedor?: string;
  tiposeCF: string[];
  urlsPrueba: ReceiverUrls;
  urlsProduccion?: ReceiverUrls;
  set: DataSet;
  pasos: StepRecord[];
  /** The e-CF DGII sent the taxpayer's receiver in the communication test, to be approved back. */
  ecfEnviado?: { rncEmisor: string; encf: string; fechaEmision: string; montoTotal: string };
}

/** The workbook DGII's guide describes: 25 e-CF, 4 RFCE and the approvals sheet. */
export const DEFAULT_SET: DataSet = { ecf: 25, rfce: 4, acecf: 11 };

/** What a provider's client skips: DGII already certified the provider's data and communication. */
export const SHORT_PATH_SKIPS: readonly StepId[] = [
  "pruebas-datos-ecf",
  "pruebas-datos-aprobacion-comercial",
  "url-prueba",
  "inicio-recepcion-ecf",
  "recepcion-ecf",
  "inicio-aprobacion-comercial",
  "aprobacion-comercial",
];

export function newPostulacion(fields: Omit<Postulacion, "pasos" | "set">, shortPath: boolean, now: Date): Postulacion {
  const pasos: StepRecord[] = STEPS.map(({ id }) => ({
    id,
    estado: shortPath && SHORT_PATH_SKIPS.includes(id) ? "no-aplica" : "pendiente",
  }));
  return complete({ ...fields, set: { ...DEFAULT_SET }, pasos }, "registro", now, "Postulación recibida");
}

/** The first step not completed: the only one that may be taken now (undefined when finished). */
export function currentStep(p: Postulacion): StepRecord | undefined {
  return p.pasos.find((step) => step.estado === "pendiente");
}

/** A new version with `id` completed; the next pending step's documents count from `now`. */
export function complete(p: Postulacion, id: StepId, now: Date, detalle?: string): Postulacion {
  const at = now.toISOString();
  const pasos = p.pasos.map((step) =>
    step.id === id
      ? { ...step, estado: "completado" as const, completadoEn: at, ...(detalle ? { detalle } : {}) }
      : step,
  );
  const next = pasos.findIndex((step) => step.estado === "pendiente");
  // The next step counts what arrives after this one was completed.
  if (next !== -1) pasos[next] = { ...pasos[next]!, desde: new Date(now.getTime() + 1).toISOString() };
  return { ...p, pasos };
}

/** A Rechazado: the step's set starts again with what is received after `after`. */
export function restart(p: Postulacion, id: StepId, after: Date, detalle: string): Postulacion {
  return {
    ...p,
    pasos: p.pasos.map((step) =>
      step.id === id
        ? { ...step, desde: new Date(after.getTime() + 1).toISOString(), reinicios: (step.reinicios ?? 0) + 1, detalle }
        : step,
    ),
  };
}

export function withDetail(p: Postulacion, id: StepId, detalle: string): Postulacion {
  return { ...p, pasos: p.pasos.map((step) => (step.id === id ? { ...step, detalle } : step)) };
}

export function isFinished(p: Postulacion): boolean {
  return currentStep(p) === undefined;
}
