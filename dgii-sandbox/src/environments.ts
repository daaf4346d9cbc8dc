// DGII's three environments, as they appear in the URL and in the status service.
export const ENVIRONMENTS = ["testecf", "certecf", "ecf"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Names the status service (statusecf) uses for each environment. */
export const STATUS_NAMES: Record<Environment, string> = {
  testecf: "PreCertificacion",
  certecf: "Certificacion",
  ecf: "Produccion",
};

/** The `ambiente` parameter of verificarestado: 1 PreCertificacion, 2 Producción, 3 Certificación. */
export const AMBIENTE_PARAM: Record<string, Environment> = { "1": "testecf", "2": "ecf", "3": "certecf" };
