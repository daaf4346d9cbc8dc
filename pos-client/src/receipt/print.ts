// The printed representation (RI) on 80 mm paper: issuer, e-NCF, lines, totals, payment, and at
// the foot the QR with the timbre URL, the security code and the signature date (informe técnico
// §17.2.3: QR at least 22 × 22 mm), and beside it the buyer's link to the receipt's page on this
// service (shared/src/receipt-link.ts). Printed with window.print(); the print CSS shows only this.
import QRCode from "qrcode";
import { receiptShortUrl } from "@ecf/shared/receipt-link";
import { h, money } from "@ecf/ui-kit";
import type { Sale } from "../db.ts";
import { dateTime, TIPO_NOMBRE } from "../format.ts";
import type { Payment } from "../sale/document.ts";

interface Doc {
  Encabezado: {
    IdDoc: { TipoeCF: string; eNCF: string; FechaVencimientoSecuencia?: string; IndicadorEnvioDiferido?: string };
    Emisor: {
      RNCEmisor: string;
      RazonSocialEmisor: string;
      NombreComercial?: string;
      DireccionEmisor?: string;
      FechaEmision: string;
    };
    Comprador?: { RNCComprador?: string; RazonSocialComprador?: string };
    Totales: { MontoGravadoTotal?: string; MontoExento?: string; TotalITBIS?: string; MontoTotal: string };
  };
  DetallesItems: {
    NombreItem: string;
    CantidadItem: string;
    PrecioUnitarioItem: string;
    DescuentoMonto?: string;
    MontoItem: string;
    IndicadorFacturacion: string;
  }[];
  InformacionReferencia?: { NCFModificado: string };
}

const PAGO: Record<string, string> = { efectivo: "Efectivo", tarjeta: "Tarjeta", transferencia: "Transferencia" };

export async function qrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { type: "svg", margin: 0, errorCorrectionLevel: "M" });
}

/** Who rang the sale up and where: printed under the date so a receipt can be traced to a drawer. */
export interface ReceiptContext {
  cashier?: string;
  till?: string;
  /** Where buyers reach the service (default: the till's own origin, which serves the API). */
  origin?: string;
}

/**
 * The buyer's link to the receipt's page, with the words of DGII's model under envío diferido
 * (representacion-impresa §3: "Enlace consulta proveedor electrónico").
 */
function consultaLink(doc: Doc, sale: Sale, origin: string): HTMLElement | null {
  if (!sale.encf || !sale.securityCode) return null;
  const url = receiptShortUrl(origin, doc.Encabezado.Emisor.RNCEmisor, sale.encf, sale.securityCode);
  const label =
    doc.Encabezado.IdDoc.IndicadorEnvioDiferido === "1"
      ? "Enlace consulta proveedor electrónico:"
      : "Consulte su comprobante en:";
  return h("div", { class: "consulta" }, label, " ", h("a", { class: "consulta-url", href: url }, url));
}

export async function receiptView(sale: Sale, context: ReceiptContext = {}): Promise<HTMLElement> {
  const doc = sale.document as Doc;
  const { IdDoc, Emisor, Comprador, Totales } = doc.Encabezado;
  const payment = sale.payment as Payment | undefined;
  const row = (label: string, value: string, cls = "") =>
    h("div", { class: `row ${cls}` }, h("span", {}, label), h("span", {}, value));
  return h(
    "section",
    { class: "ticket", "data-encf": sale.encf ?? "" },
    h(
      "header",
      {},
      h("strong", {}, Emisor.NombreComercial ?? Emisor.RazonSocialEmisor),
      h("div", {}, Emisor.RazonSocialEmisor),
      h("div", {}, `RNC ${Emisor.RNCEmisor}`),
      Emisor.DireccionEmisor ? h("div", {}, Emisor.DireccionEmisor) : null,
    ),
    h("div", { class: "title" }, TIPO_NOMBRE[IdDoc.TipoeCF] ?? `e-CF ${IdDoc.TipoeCF}`),
    row("e-NCF", IdDoc.eNCF),
    row("Fecha", Emisor.FechaEmision),
    row("Hora de venta", dateTime(sale.createdAt), "sold-at"),
    context.till ? row("Caja", context.till, "till") : null,
    context.cashier ? row("Cajero", context.cashier, "cashier") : null,
    IdDoc.FechaVencimientoSecuencia ? row("Válida hasta", IdDoc.FechaVencimientoSecuencia) : null,
    Comprador?.RNCComprador ? row("RNC cliente", Comprador.RNCComprador) : null,
    Comprador?.RazonSocialComprador ? row("Cliente", Comprador.RazonSocialComprador) : null,
    doc.InformacionReferencia ? row("Modifica", doc.InformacionReferencia.NCFModificado) : null,
    h(
      "table",
      { class: "items" },
      h("thead", {}, h("tr", {}, h("th", {}, "Cant."), h("th", {}, "Descripción"), h("th", {}, "Valor"))),
      h(
        "tbody",
        {},
        ...doc.DetallesItems.map((item) =>
          h(
            "tr",
            {},
            h("td", {}, item.CantidadItem),
            h(
              "td",
              {},
              item.NombreItem,
              h(
                "small",
                {},
                ` @ ${money(item.PrecioUnitarioItem)}${item.IndicadorFacturacion === "4" ? " (E)" : ""}` +
                  (item.DescuentoMonto ? ` desc. ${money(item.DescuentoMonto)}` : ""),
              ),
            ),
            h("td", { class: "num" }, money(item.MontoItem)),
          ),
        ),
      ),
    ),
    Totales.MontoGravadoTotal ? row("Subtotal gravado", money(Totales.MontoGravadoTotal)) : null,
    Totales.MontoExento ? row("Subtotal exento", money(Totales.MontoExento)) : null,
    row("Total ITBIS", money(Totales.TotalITBIS ?? "0")),
    row("TOTAL", money(Totales.MontoTotal), "total"),
    ...(payment?.parts ?? []).map((p) => row(PAGO[p.method] ?? p.method, money(p.amount))),
    payment?.cashReceived
      ? row("Cambio", money(change(payment.cashReceived, payment.parts, Totales.MontoTotal)))
      : null,
    await timbreFooter(doc, sale, context.origin ?? location.origin),
  );
}

/** The foot DGII asks for (§17.2.3): the QR, the security code and signing date; then the buyer's link and the state. */
async function timbreFooter(doc: Doc, sale: Sale, origin: string): Promise<HTMLElement> {
  const qr = h("div", { class: "qr", "aria-label": "Código QR de consulta DGII" });
  // The SVG comes from our QR encoder over a URL we built: not user HTML.
  qr.innerHTML = await qrSvg(sale.timbreUrl!);
  return h(
    "footer",
    {},
    qr,
    h(
      "div",
      { class: "codes" },
      h("div", {}, "Código de seguridad: ", h("strong", { class: "security-code" }, sale.securityCode ?? "")),
      h("div", {}, "Fecha de firma digital: ", h("span", { class: "signature-date" }, sale.fechaHoraFirma ?? "")),
    ),
    consultaLink(doc, sale, origin),
    h("div", { class: "estado" }, `Estado: ${sale.estado ?? "Pendiente"}`),
  );
}

/** Cash received minus what the cash part pays (exact cents). */
function change(received: string, parts: Payment["parts"], total: string): string {
  const cents = (s: string) => {
    const [i = "0", f = ""] = s.split(".");
    return BigInt(i) * 100n + BigInt((f + "00").slice(0, 2)) * (s.startsWith("-") ? -1n : 1n);
  };
  const cash = parts.find((p) => p.method === "efectivo")?.amount ?? total;
  const c = cents(received) - cents(cash);
  const abs = c < 0n ? -c : c;
  return `${c < 0n ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

export { dateTime };
