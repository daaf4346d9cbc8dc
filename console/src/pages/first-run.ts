// A new company's first steps, on Hoy until they are done: company data → certificate → e-NCF
// ranges → first invoice, each linked to where it is done; and, once running, the ranges about to
// run out (what DGII authorised is used up before the company notices otherwise).
import type { components } from "@ecf/client";
import { api } from "../api.ts";
import { h } from "../dom.ts";
import { day, TIPO_NOMBRE } from "../format.ts";

type Profile = components["schemas"]["CompanyProfile"];

/** A range is low when fewer than this many numbers, or this share of it, remain. */
const LOW_NUMBERS = 50;
const LOW_SHARE = 0.1;

/** Reads the sequences, then draws the steps left and the low ranges for the company's profile. */
export async function firstRunAndRanges(): Promise<(me: Profile, issuedThisMonth: number) => HTMLElement | null> {
  const { data } = await api.GET("/company/sequences");
  return (me, issuedThisMonth) => stepsAndRanges(me, issuedThisMonth, data?.sequences ?? []);
}

type Sequence = components["schemas"]["Sequence"];

function stepsAndRanges(me: Profile, issuedThisMonth: number, sequences: Sequence[]): HTMLElement | null {
  const steps: [string, boolean, string][] = [
    ["Revisar los datos de la empresa", true, "#/configuracion"],
    ["Cargar el certificado de firma digital", me.signatureExpirationDate !== null, "#/configuracion"],
    ["Registrar los rangos de e-NCF que autorizó la DGII", sequences.some((s) => s.nextEncf), "#/configuracion"],
    ["Emitir la primera factura", issuedThisMonth > 0 || me.invoicesCountCurrentMonth > 0, "#/emitir/31"],
  ];
  const low = sequences.filter(
    (s) => s.nextEncf && (s.remaining < LOW_NUMBERS || s.remaining < (s.rangeTo - s.rangeFrom + 1) * LOW_SHARE),
  );
  const setup = steps.every(([, done]) => done)
    ? null
    : h(
        "article",
        { class: "card first-run", "aria-labelledby": "primeros-pasos" },
        h("h2", { id: "primeros-pasos" }, "Primeros pasos"),
        h(
          "ol",
          {},
          ...steps.map(([what, done, where]) =>
            h("li", { class: done ? "ok" : "wait" }, done ? `${what}: listo.` : h("a", { href: where }, what)),
          ),
        ),
      );
  const ranges = low.length
    ? h(
        "ul",
        { class: "warnings", "aria-label": "Rangos por agotarse" },
        ...low.map((s) =>
          h(
            "li",
            {},
            `E${s.tipoeCF} ${TIPO_NOMBRE[s.tipoeCF] ?? ""}: quedan ${s.remaining} números (vence ${day(s.expiresOn)}). `,
            h("a", { href: "#/configuracion" }, "Solicitar y registrar otro rango"),
          ),
        ),
      )
    : null;
  return setup || ranges ? h("div", {}, setup, ranges) : null;
}
