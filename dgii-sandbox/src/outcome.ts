// Validation states as DGII reports them (consultaresultado, consultatrackids, recepcionfc).
export const ESTADOS = {
  0: "No encontrado",
  1: "Aceptado",
  2: "Rechazado",
  3: "En Proceso",
  4: "Aceptado Condicional",
} as const;
export type Codigo = keyof typeof ESTADOS;
export type Estado = (typeof ESTADOS)[Codigo];

export interface Mensaje {
  valor: string;
  codigo: number;
}

/** The final result of validating a received document. */
export interface Outcome {
  codigo: 1 | 2 | 4;
  estado: Estado;
  mensajes: Mensaje[];
  /** False only when the e-NCF may be reused (see descripcion-tecnica: consulta resultado). */
  secuenciaUtilizada: boolean;
}

export const accepted = (): Outcome => ({ codigo: 1, estado: ESTADOS[1], mensajes: [], secuenciaUtilizada: true });

export const acceptedWithObservations = (mensajes: Mensaje[]): Outcome => ({
  codigo: 4,
  estado: ESTADOS[4],
  mensajes,
  secuenciaUtilizada: true,
});

export const rejected = (mensajes: Mensaje[], secuenciaUtilizada: boolean): Outcome => ({
  codigo: 2,
  estado: ESTADOS[2],
  mensajes,
  secuenciaUtilizada,
});
