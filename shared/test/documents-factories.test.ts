/**
 * The shared factories are meant for every part's tests: their documents must be accepted by the
 * whole rule set (obligations, totals, catalogs), not only by the XSD.
 */
import { describe, expect, it } from "vitest";
import { TIPOS_ECF, validateEcf } from "../src/index.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";

describe("factory e-CF pass validateEcf without any problem", () => {
  for (const tipo of TIPOS_ECF) {
    it.each(ecfCases(tipo))(`E${tipo}: %s`, (_name, options) => {
      const doc = makeEcf(tipo, options);
      const r = validateEcf(doc, { now: new Date("2025-04-01T14:30:00Z") });
      expect(r.problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([]);
      expect(r.ok).toBe(true);
    });
  }
});
