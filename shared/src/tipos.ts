/** The ten e-CF types DGII defines, by their `TipoeCF` code. */
export const TIPOS_ECF = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as const;
export type TipoeCF = (typeof TIPOS_ECF)[number];

export function isTipoeCF(value: unknown): value is TipoeCF {
  return typeof value === "string" && (TIPOS_ECF as readonly string[]).includes(value);
}

/** DGII environments; each has its own hosts, tokens and certificate rules. */
export const DGII_ENVIRONMENTS = ["testecf", "certecf", "ecf"] as const;
export type DgiiEnvironment = (typeof DGII_ENVIRONMENTS)[number];
