import { describe, expect, it } from "vitest";
import {
  ENUMERACIONES,
  IMPUESTOS_ADICIONALES,
  MONEDAS,
  PROVINCIAS_MUNICIPIOS,
  UNIDADES_MEDIDA,
  enumValues,
  impuestoAdicional,
  isEnumValue,
  moneda,
  provinciaMunicipio,
  unidadMedida,
} from "../src/catalogs.ts";

describe("generated catalogs", () => {
  it.each([
    ["units of measure", UNIDADES_MEDIDA.length, 62],
    ["additional taxes", IMPUESTOS_ADICIONALES.length, 39],
    ["places", PROVINCIAS_MUNICIPIOS.length, 582],
    ["currencies", MONEDAS.length, 17],
  ])("%s: %i rows", (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it.each([
    ["001", "otro", "10", "percent"],
    ["002", "otro", "2", "percent"],
    ["006", "isc_especifico", "632.58", "dop_per_unit"],
    ["019", "isc_especifico", "53.51", "dop_per_unit"],
    ["022", "isc_especifico", "26.75", "dop_per_unit"],
    ["023", "isc_advalorem", "10", "percent"],
    ["039", "isc_advalorem", "20", "percent"],
  ])("tax %s is %s at %s (%s)", (code, kind, tasa, unit) => {
    const t = impuestoAdicional(code);
    expect(t).toMatchObject({ codigo: code, kind, tasa, tasaUnidad: unit });
  });

  it.each([
    [impuestoAdicional(1)?.codigo, "001"],
    [impuestoAdicional("040"), undefined],
    [impuestoAdicional("abc"), undefined],
    [unidadMedida("18")?.abreviatura, "GRAN"],
    [unidadMedida(63), undefined],
    [moneda("USD")?.descripcion, "DOLAR ESTADOUNIDENSE"],
    [moneda("XYZ"), undefined],
    [provinciaMunicipio("010000")?.descripcion, "DISTRITO NACIONAL"],
    [provinciaMunicipio("999999"), undefined],
  ])("lookup → %j", (actual, expected) => {
    expect(actual).toEqual(expected);
  });

  it("enumerations", () => {
    expect(enumValues("tipo_ecf")).toEqual(["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"]);
    expect(enumValues("codigo_modificacion")).toEqual(["1", "2", "3", "4", "5"]);
    expect(ENUMERACIONES.indicador_facturacion.values).toHaveLength(5);
    expect(isEnumValue("tipo_pago", 3)).toBe(true);
    expect(isEnumValue("tipo_pago", "4")).toBe(false);
  });
});
