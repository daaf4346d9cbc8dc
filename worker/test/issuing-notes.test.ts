// A credit note that leaves TipoIngresos out (DGII's own test sets do) inherits it from the receipt
// it modifies when that receipt is ours; otherwise "01" is assumed and the answer warns of it.
import { xmlToEcf } from "@ecf/shared";
import { describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer, todayDgii } from "./support/issuing.ts";

const archivedIdDoc = async (token: string, encf: string) =>
  (
    xmlToEcf(await (await call(`/fe/recepcion/ecf/${encf}/xml`, { headers: authed(token) })).text()) as {
      Encabezado: { IdDoc: Record<string, string> };
    }
  ).Encabezado.IdDoc;

describe("TipoIngresos of a note", () => {
  it.each([
    ["inherited from our receipt", "02", true, "02"],
    ["01 when the modified receipt is not ours", "02", false, "01"],
  ])("%s", async (_label, originalTipoIngresos, ours, expected) => {
    const { token } = await issuer();
    const original = await issue(
      token,
      issueRequest("31", {}, (doc) => {
        doc.Encabezado.IdDoc.TipoIngresos = originalTipoIngresos;
      }),
    );
    expect(original.body.estado, JSON.stringify(original.body)).toBe("Aceptado");
    expect((await archivedIdDoc(token, original.body.encf)).TipoIngresos).toBe(originalTipoIngresos);

    const note = await issue(
      token,
      issueRequest("34", { codigoModificacion: "2" }, (doc) => {
        delete doc.Encabezado.IdDoc.TipoIngresos;
        doc.InformacionReferencia.NCFModificado = ours ? original.body.encf : "E310000999999";
        doc.InformacionReferencia.FechaNCFModificado = todayDgii();
      }),
    );
    expect(note.body.estado, JSON.stringify(note.body)).toBe("Aceptado");
    expect((await archivedIdDoc(token, note.body.encf)).TipoIngresos).toBe(expected);
    // Only an assumption is worth a warning; an inherited value is what the note means.
    const warned = (note.body.warnings ?? []).filter(
      (w: { path: string }) => w.path === "/Encabezado/IdDoc/TipoIngresos",
    );
    expect(warned.map((w: { code: string }) => w.code)).toEqual(ours ? [] : ["assumed_value"]);
  });
});
