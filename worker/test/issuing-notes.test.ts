// A credit note that leaves TipoIngresos out (DGII's own test sets do) inherits it from the receipt
// it modifies when that receipt is ours; otherwise "01" is assumed and the answer warns of it.
import { availableBalance, xmlToEcf } from "@ecf/shared";
import { describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer, todayDgii } from "./support/issuing.ts";

type Json = Record<string, any>;

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

/** One service line at `price` with 18 % ITBIS (total = price × 1.18). */
const oneLine = (price: string) => (doc: Json) => {
  doc.DetallesItems = [
    {
      NumeroLinea: "1",
      IndicadorFacturacion: "1",
      NombreItem: "Servicio",
      IndicadorBienoServicio: "2",
      CantidadItem: "1",
      UnidadMedida: "43",
      PrecioUnitarioItem: price,
    },
  ];
  delete doc.Encabezado.IdDoc.TablaFormasPago;
};

describe("GET /fe/recepcion/ecf/{encf}/notes", () => {
  it("lists the notes DGII accepted against a receipt, from which its balance follows; another issuer gets 404", async () => {
    const { token } = await issuer();
    const original = await issue(token, issueRequest("31", {}, oneLine("1000.00")));
    expect(original.body.estado, JSON.stringify(original.body)).toBe("Aceptado");
    const encf = original.body.encf as string;
    const notesOf = async (t: string) => {
      const res = await call(`/fe/recepcion/ecf/${encf}/notes`, { headers: authed(t) });
      return { status: res.status, body: (await res.json()) as Json };
    };
    expect((await notesOf(token)).body).toEqual({ encf, montoTotal: "1180.00", notes: [] });

    const credit = (price: string) =>
      issueRequest("34", { codigoModificacion: "3" }, (doc) => {
        oneLine(price)(doc);
        doc.InformacionReferencia.NCFModificado = encf;
        doc.InformacionReferencia.FechaNCFModificado = todayDgii();
      });
    const part = await issue(token, credit("100.00"));
    expect(part.body.estado, JSON.stringify(part.body)).toBe("Aceptado");
    const listed = await notesOf(token);
    expect(listed.body).toEqual({
      encf,
      montoTotal: "1180.00",
      notes: [
        {
          encf: part.body.encf,
          tipoeCF: "34",
          codigoModificacion: "3",
          montoTotal: "118.00",
          fechaEmision: part.body.fechaEmision,
        },
      ],
    });
    // The balance the console computes from them is the one issuing enforces.
    const accepted = listed.body.notes.map((n: Json) => ({ ...n, tipo: n.tipoeCF }));
    const { available } = availableBalance(listed.body.montoTotal, accepted);
    expect(available).toBe("1062.00");
    const over = await issue(token, credit("1000.00")); // 1180.00 > 1062.00
    expect(over.status).toBe(400);
    // (A random test RNC may also draw a check-digit warning: only the errors are compared.)
    expect(over.body.errors.filter((e: { severity?: string }) => e.severity !== "warning")).toEqual([
      expect.objectContaining({ path: "/Encabezado/Totales/MontoTotal", code: "credit_exceeds_available" }),
    ]);
    expect((await notesOf(token)).body.notes).toHaveLength(1);

    const other = await issuer();
    expect((await notesOf(other.token)).status).toBe(404);
  });
});
