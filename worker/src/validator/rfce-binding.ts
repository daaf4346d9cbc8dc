// An RFCE is the summary of one E32 (formato-rfce): every element it has, copied from the E32
// exactly as signed, and CodigoSeguridadeCF = the E32's security code, so the summary DGII keeps
// can only describe the document the buyer holds. Given both, each element that differs is a problem.
import { DocumentBuildError, rfceFromEcf, securityCode, xmlToEcf, xmlToDocument } from "@ecf/shared";
import { finding, type Finding } from "./finding.ts";

const RULE = "formato-rfce: the RFCE copies its E32 (CodigoSeguridadeCF = the E32's security code)";

/** Leaves by path ("/Encabezado/Totales/MontoTotal"), arrays by index. */
function leaves(value: unknown, path = "", out = new Map<string, string>()): Map<string, string> {
  if (typeof value === "string" || typeof value === "number") out.set(path, String(value));
  else if (Array.isArray(value)) value.forEach((item, i) => leaves(item, `${path}/${i}`, out));
  else if (value && typeof value === "object")
    for (const [key, child] of Object.entries(value)) leaves(child, `${path}/${key}`, out);
  return out;
}

export function rfceBindingFindings(rfceXml: string, e32Xml: string): Finding[] {
  let expected: Map<string, string>;
  let actual: Map<string, string>;
  try {
    expected = leaves(rfceFromEcf({ ecf: xmlToEcf(e32Xml), CodigoSeguridadeCF: securityCode(e32Xml) }));
    actual = leaves(xmlToDocument(rfceXml, "RFCE"));
  } catch (error) {
    const detail = error instanceof DocumentBuildError ? error.message : (error as Error).message;
    return [
      finding(
        "/ecf",
        "rfce_e32_unreadable",
        `The E32 given cannot be summarised as an RFCE: ${detail}`,
        `La E32 enviada no se puede resumir como RFCE: ${detail}`,
        RULE,
      ),
    ];
  }
  const paths = new Set([...expected.keys(), ...actual.keys()].filter((p) => !p.startsWith("/Signature")));
  return [...paths]
    .filter((path) => expected.get(path) !== actual.get(path))
    .map((path) =>
      finding(
        `/xml${path}`,
        "rfce_mismatch",
        `The RFCE has ${actual.get(path) ?? "nothing"} at ${path}, its E32 ${expected.get(path) ?? "nothing"}.`,
        `El RFCE tiene ${actual.get(path) ?? "nada"} en ${path} y su E32 ${expected.get(path) ?? "nada"}.`,
        RULE,
      ),
    );
}
