// The ISR an E47 (payment abroad) withholds. DGII's informe-tecnico says the E47 is for rentas
// gravadas de fuente dominicana paid to non-residents "obligadas a realizar la retención total del
// Impuesto sobre la Renta, de conformidad a los artículos 297 y 305 del Código Tributario"; the
// Código (as Ley 253-12 left it) sets the rates of those payments: art. 305 the rate of art. 297
// (27 %) for payments abroad in general, art. 306 10 % of interest paid abroad, art. 308 10 % of
// dividends paid to residents and non-residents alike. Treaty rates (Canadá, España) depend on the
// treaty's article and are not offered here.

export interface IsrAbroadCase {
  /** The Código Tributario's article, the case's identity. */
  article: "305" | "306" | "308";
  /** The percent withheld (exact decimal text). */
  rate: string;
  /** What the owner reads, in Spanish. */
  label: string;
}

export const ISR_ABROAD_CASES: readonly IsrAbroadCase[] = [
  { article: "305", rate: "27", label: "27 %: servicios y demás pagos al exterior (art. 305)" },
  { article: "306", rate: "10", label: "10 %: intereses pagados al exterior (art. 306)" },
  { article: "308", rate: "10", label: "10 %: dividendos pagados al exterior (art. 308)" },
];
