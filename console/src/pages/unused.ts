// Numbers handed out that will never be a receipt (the service stopped between numbering and
// recording): listed per type and voided with DGII in one ANECF (POST /fe/anulacion).
import type { components } from "@ecf/client";
import { api, reportingTo } from "../api.ts";
import { h, statusLine, table } from "../dom.ts";

type Rango = components["schemas"]["AnulacionRequest"]["rangos"][number];

export async function unusedSection(reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/company/sequences");
  const lists = await Promise.all(
    (data?.sequences ?? []).map(async (s) => {
      const { data: unused } = await api.GET("/company/sequences/{tipo}/unused", {
        params: { path: { tipo: s.tipoeCF } },
      });
      return (unused?.rangos ?? []) as Rango[];
    }),
  );
  const rangos = lists.flat();
  const status = statusLine();
  const voidAll = async () => {
    await reportingTo(status, async () => {
      await api.POST("/fe/anulacion", { body: { rangos } });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Números sin usar por anular"),
    rangos.length
      ? table(
          "Rangos sin comprobante",
          ["Tipo", "Desde", "Hasta"],
          rangos.map((r) => [`E${r.tipoeCF}`, r.desde, r.hasta]),
        )
      : h("p", {}, "Ninguno."),
    rangos.length ? h("button", { type: "button", onclick: () => void voidAll() }, "Anular con la DGII") : null,
    status,
  );
}
