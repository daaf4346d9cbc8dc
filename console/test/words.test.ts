// The shared validation's Spanish messages as the issue form shows them: element names in the
// labels' words, containers too, and no JSON path left.
import { describe, expect, it } from "vitest";
import { inWords } from "../src/issue-form/words.ts";

describe("inWords", () => {
  it("says the form's element names as its labels do", () => {
    expect(inWords("RNCComprador es obligatorio en un e-CF tipo 31")).toBe(
      "El RNC o la cédula del comprador es obligatorio en un e-CF tipo 31",
    );
    expect(inWords("TablaSubDescuento es obligatorio cuando la línea tiene descuento")).toBe(
      "El descuento es obligatorio cuando la línea tiene descuento",
    );
    expect(inWords("Comprador es obligatorio en un e-CF tipo 31")).toBe(
      "El comprador es obligatorio en un e-CF tipo 31",
    );
  });

  it("leaves no JSON path and no unknown element name", () => {
    const said = inWords("/Encabezado/IdDoc/IndicadorEnvioDiferido: IndicadorEnvioDiferido no es válido");
    expect(said).toBe("Un dato del comprobante no es válido");
    expect(said).not.toMatch(/\/|[A-Z][a-z]+[A-Z]/);
  });
});
