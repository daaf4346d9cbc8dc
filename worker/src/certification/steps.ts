// DGII's 14 certification steps (Guía de certificación, July 2025), in the portal's order, and for
// each who does it: this service (a program can), the person in DGII's portal, or DGII. A person's
// step carries its checklist: what to upload or do, where, and what DGII answers.
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

export type StepActor = "service" | "person" | "dgii";

export interface PersonAct {
  es: string;
  en: string;
}

export interface StepDefinition {
  id: StepId;
  number: number;
  /** As DGII's portal names it. */
  name: string;
  actor: StepActor;
  /** What the person does, where, and what DGII answers (person's steps only). */
  act?: PersonAct;
}

const portal = "Oficina Virtual de DGII → Facturación Electrónica → Certificación";

// biome-ignore format: one step per line
const DEFINITIONS: [StepId, string, StepActor, PersonAct?][] = [
  ["registro", "Registrado (postulación)", "person", {
    es: `Descargue la postulación firmada (botón «Descargar postulación») y súbala en ${portal}. DGII responde «Registrado» y habilita las pruebas de datos.`,
    en: `Download the signed postulación (GET /company/certification/postulacion) and upload it at ${portal}. DGII answers "Registrado" and opens the data tests.`,
  }],
  ["pruebas-datos-ecf", "Pruebas de datos e-CF", "service"],
  ["pruebas-datos-aprobacion-comercial", "Pruebas de datos Aprobación Comercial", "service"],
  ["simulacion", "Pruebas simulación e-CF", "service"],
  ["representacion-impresa", "Validación representación impresa", "person", {
    es: `Suba en un solo PDF (menos de 10 MB) las representaciones impresas de las facturas de la simulación en ${portal}. DGII lo revisa y aprueba o devuelve observaciones.`,
    en: `Upload the simulation invoices' printed copies as one PDF (under 10 MB) at ${portal}. DGII reviews it and approves or returns remarks.`,
  }],
  ["url-prueba", "URL servicios prueba", "person", {
    es: `Registre en ${portal} las tres URL de prueba que muestra esta página (recepción, aprobación comercial, autenticación). Deben responder desde Internet.`,
    en: `Register at ${portal} the three test URLs this page shows (reception, commercial approval, authentication). They must answer from the Internet.`,
  }],
  ["inicio-recepcion-ecf", "Inicio prueba recepción e-CF", "person", {
    es: `Pulse «Iniciar» en ${portal}: DGII envía un e-CF a su URL de recepción y espera el acuse de recibo firmado, que este servicio responde solo.`,
    en: `Press "Iniciar" at ${portal}: DGII sends an e-CF to your reception URL and expects the signed acknowledgement, which this service answers by itself.`,
  }],
  ["recepcion-ecf", "Recepción e-CF", "dgii"],
  ["inicio-aprobacion-comercial", "Inicio prueba recepción Aprobación Comercial", "person", {
    es: `Pulse «Iniciar» en ${portal}: DGII envía una aprobación comercial a su URL; apruebe también en la consola el e-CF que DGII le envió.`,
    en: `Press "Iniciar" at ${portal}: DGII sends a commercial approval to your URL; also approve, in the console, the e-CF DGII sent you.`,
  }],
  ["aprobacion-comercial", "Recepción Aprobación Comercial", "dgii"],
  ["url-produccion", "URL servicios producción", "person", {
    es: `Registre en ${portal} las URL de producción (https, públicas) de su despliegue.`,
    en: `Register at ${portal} your deployment's production URLs (https, public).`,
  }],
  ["declaracion-jurada", "Declaración jurada", "person", {
    es: `Descargue la declaración jurada firmada (botón «Descargar declaración jurada») y súbala en ${portal}. DGII comprueba que la firma es del representante registrado.`,
    en: `Download the signed declaración jurada (GET /company/certification/declaracion) and upload it at ${portal}. DGII checks that the signer is the registered representative.`,
  }],
  ["verificacion-estatus", "Verificación estatus", "dgii"],
  ["finalizado", "Finalizado", "dgii"],
];

export const STEPS: readonly StepDefinition[] = DEFINITIONS.map(([id, name, actor, act], index) => ({
  id,
  number: index + 1,
  name,
  actor,
  ...(act ? { act } : {}),
}));

/** What a certified provider's client skips (Guía para contribuyentes con proveedor, March 2025). */
export const SHORT_PATH_SKIPS: readonly StepId[] = [
  "pruebas-datos-ecf",
  "pruebas-datos-aprobacion-comercial",
  "url-prueba",
  "inicio-recepcion-ecf",
  "recepcion-ecf",
  "inicio-aprobacion-comercial",
  "aprobacion-comercial",
];

export function isStepId(value: string): value is StepId {
  return (STEP_IDS as readonly string[]).includes(value);
}
