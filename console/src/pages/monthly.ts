// Mensual: for a month, what is missing before the 606, 607 and 608 can be filed (each item links
// to where it is fixed), the TXT files DGII's tool would write, and the month's archive.
import type { components } from "@ecf/client";
import { problemText } from "@ecf/ui-kit";
import { money } from "@ecf/ui-kit";
import { api, download } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { currentPeriod } from "../format.ts";
import { COLUMN_LABELS } from "../monthly-columns.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";

type Missing = components["schemas"]["MonthlyFormatMissing"];
type MonthlyFile = {
  fileName: string;
  complete: boolean;
  recordCount: number;
  missing?: Missing[];
  lines?: { fields: Record<string, string> }[];
  consumptionSummary?: components["schemas"]["ResumenConsumo"];
};
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
        data: data as MonthlyFile,
      };
    }),
  );
  const canDownload = may(ctx.session.role, "monthly");
  // A month is filed once it has ended: until then receipts may still be added to it.
  const ended = period < currentPeriod();
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
        h("p", { class: data.complete && ended ? "ok" : "warn" }, readiness(data, ended)),
        data.missing?.length ? h("ul", { class: "missing" }, ...data.missing.map(missingItem)) : null,
        data.consumptionSummary ? consumerSummary(data.consumptionSummary) : null,
        preview(format, data),
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

/** "Listo para presentar" only for a month that has ended with nothing missing. */
function readiness(data: MonthlyFile, ended: boolean): string {
  if (!data.complete) return `Incompleto: faltan ${data.missing?.length ?? 0} datos.`;
  if (!ended) return `Completo hasta hoy: ${data.recordCount} registros; se presenta cuando el mes termine.`;
  return `Completo: ${data.recordCount} registros, listo para presentar.`;
}

/** The E32 under 250,000: not records of the 607 but a summary entered in the Oficina Virtual. */
function consumerSummary(s: components["schemas"]["ResumenConsumo"]): HTMLElement {
  return table(
    `Resumen de facturas de consumo menores de RD$250,000 (${s.count})`,
    ["Monto facturado", "ITBIS", "Total"],
    [[money(s.montoFacturado), money(s.itbisFacturado), money(s.montoTotal)]],
  );
}

/** The file's first records as a table, before it is downloaded, under DGII's column names. */
function preview(format: (typeof FORMATS)[number], data: MonthlyFile): HTMLElement | null {
  const lines = data.lines ?? [];
  if (!lines.length) return null;
  const labels = COLUMN_LABELS[format];
  const columns = Object.keys(lines[0]!.fields).filter((c) => labels[c]);
  return h(
    "details",
    { class: "preview" },
    h("summary", {}, `Ver los registros del ${format}`),
    h(
      "div",
      { class: "scroll", tabindex: "0", role: "region", "aria-label": `Registros del ${format}` },
      table(
        `Formato ${format}: ${lines.length} registros`,
        columns.map((c) => labels[c]!),
        lines.slice(0, 200).map((l) => columns.map((c) => l.fields[c] ?? "")),
      ),
    ),
  );
}
