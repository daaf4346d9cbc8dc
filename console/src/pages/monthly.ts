// Mensual: for a month, what is missing before the 606, 607 and 608 can be filed (each item links
// to where it is fixed), the TXT files DGII's tool would write, and the month's archive.
import type { components } from "@ecf/client";
import { problemText } from "@ecf/ui-kit";
import { api, download } from "../api.ts";
import { field, h, statusLine } from "../dom.ts";
import { currentPeriod } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";

type Missing = components["schemas"]["MonthlyFormatMissing"];
const FORMATS = ["606", "607", "608"] as const;

export const monthlyPage: Page = async (ctx) => {
  const period = ctx.route.query.get("periodo") ?? currentPeriod();
  const input = h("input", { name: "periodo", type: "month", value: period });
  const status = statusLine();
  const reports = await Promise.all(
    FORMATS.map(async (format) => {
      const { data } = await api.GET(`/reports/${format}`, { params: { query: { period } } });
      return {
        format,
        data: data as { fileName: string; complete: boolean; recordCount: number; missing?: Missing[] },
      };
    }),
  );
  const canDownload = may(ctx.session.role, "monthly");
  const save = (path: string, name: string, accept?: string) => () =>
    download(path, name, accept).catch((e) => (status.textContent = problemText(e)));
  return h(
    "section",
    {},
    h("h1", {}, "Mensual"),
    h(
      "form",
      {
        class: "inline-form",
        onsubmit: (e: Event) => {
          e.preventDefault();
          location.hash = `#/mensual?periodo=${input.value}`;
        },
      },
      field("Mes", input),
      h("button", { type: "submit" }, "Ver"),
    ),
    ...reports.map(({ format, data }) =>
      h(
        "article",
        { class: "card", "aria-labelledby": `f${format}` },
        h("h2", { id: `f${format}` }, `Formato ${format}`),
        h(
          "p",
          { class: data.complete ? "ok" : "warn" },
          data.complete
            ? `Completo: ${data.recordCount} registros, listo para presentar.`
            : `Incompleto: faltan ${data.missing?.length ?? 0} datos.`,
        ),
        data.missing?.length ? h("ul", { class: "missing" }, ...data.missing.map(missingItem)) : null,
        canDownload && data.complete
          ? h(
              "button",
              {
                type: "button",
                onclick: save(`/reports/${format}?period=${period}&format=txt`, data.fileName, "text/plain"),
              },
              `Descargar ${data.fileName}`,
            )
          : null,
      ),
    ),
    canDownload
      ? h(
          "p",
          {},
          h(
            "button",
            { type: "button", onclick: save(`/archive/${period.replace("-", "")}`, `archivo-${period}.zip`) },
            "Descargar el archivo del mes (ZIP)",
          ),
        )
      : null,
    status,
  );
};

/** One missing item, linked to the page that fixes it. */
function missingItem(m: Missing): HTMLElement {
  const where = m.id ? "#/compras" : m.encf ? `#/comprobantes/${m.encf}` : null;
  const what = `${m.encf ? `${m.encf}: ` : ""}${m.message}`;
  return h("li", {}, where ? h("a", { href: where }, what) : what);
}
