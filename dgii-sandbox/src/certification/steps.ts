// The 14 steps of DGII's certification, in the order DGII's portal lists them (Guía de
// certificación, July 2025). Each is done by the taxpayer's program, by the person in DGII's
// portal, or by DGII itself; none may be taken before the one above it is completed.
export const STEP_IDS = [
  "registro",
  "pruebas-datos-ecf",
  "pruebas-datos-aprobacion-comercial",
  "simulacion",
  "representacion-impresa",
  "url-prueba",
  "inicio-recepcion-ecf",
  "recepcion-ecf",
  "inicio-aprobacion-comercial",
  "aprobacion-comercial",
  "url-produccion",
  "declaracion-jurada",
  "verificacion-estatus",
  "finalizado",
] as const;
export type StepId = (typeof STEP_IDS)[number];

/** Who completes the step: the taxpayer's software, the person in the portal, or DGII by itself. */
export type StepActor = "programa" | "contribuyente" | "dgii";

export interface StepDefinition {
  id: StepId;
  numero: number;
  /** The name DGII's portal shows. */
  nombre: string;
  actor: StepActor;
}

const NAMES: Record<StepId, [string, StepActor]> = {
  registro: ["Registrado (postulación)", "contribuyente"],
  "pruebas-datos-ecf": ["Pruebas de datos e-CF", "programa"],
  "pruebas-datos-aprobacion-comercial": ["Pruebas de datos Aprobación Comercial", "programa"],
  simulacion: ["Pruebas simulación e-CF", "programa"],
  "representacion-impresa": ["Validación representación impresa", "contribuyente"],
  "url-prueba": ["URL servicios prueba", "contribuyente"],
  "inicio-recepcion-ecf": ["Inicio prueba recepción e-CF", "contribuyente"],
  "recepcion-ecf": ["Recepción e-CF", "dgii"],
  "inicio-aprobacion-comercial": ["Inicio prueba recepción Aprobación Comercial", "contribuyente"],
  "aprobacion-comercial": ["Recepción Aprobación Comercial", "dgii"],
  "url-produccion": ["URL servicios producción", "contribuyente"],
  "declaracion-jurada": ["Declaración jurada", "contribuyente"],
  "verificacion-estatus": ["Verificación estatus", "dgii"],
  finalizado: ["Finalizado", "dgii"],
};

export const STEPS: readonly StepDefinition[] = STEP_IDS.map((id, index) => ({
  id,
  numero: index + 1,
  nombre: NAMES[id][0],
  actor: NAMES[id][1],
}));

export function stepNumber(id: StepId): number {
  return STEP_IDS.indexOf(id) + 1;
}

export function isStepId(value: string): value is StepId {
  return (STEP_IDS as readonly string[]).includes(value);
}
