// The receipt's public page, in Spanish and in words: the issuer's name at the top, the printed
// copy's contents (the same view the PDF is drawn from: print/receipt-view.ts), DGII's state, and
// the downloads. Plain server-rendered HTML with no script: it opens on any telephone that
// scanned the ticket, and its CSP allows nothing but its own inline style.
import { receiptPartUrl } from "@ecf/shared/receipt-link";
import type { CreditoFiscalRequestRow } from "../db/credito-fiscal-tables.ts";
import type { Company } from "../db/tables.ts";
import { estadoOf } from "../ledger/month/estado.ts";
import type { Receipt } from "../ledger/rows.ts";
import { formatAmount } from "../print/pdf-text.ts";
import type { ReceiptView } from "../print/receipt-view.ts";

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (value: string | undefined) => (value ?? "").replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

/** DGII's state in a buyer's words. */
const ESTADO_EN_PALABRAS: Record<string, string> = {
  Aceptado: "Aceptado por la DGII",
  "Aceptado Condicional": "Aceptado por la DGII con observaciones",
  "En Proceso": "En proceso en la DGII",
  Rechazado: "Rechazado por la DGII",
  Contingencia: "Pendiente de envío a la DGII",
  Anulado: "Anulado",
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:0 auto;padding:1rem;color:#222}
header{border-bottom:1px solid #ccc;margin-bottom:1rem}h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem}
table{width:100%;border-collapse:collapse}td,th{padding:.25rem;border-bottom:1px solid #eee;text-align:left}
.num{text-align:right;white-space:nowrap}.estado{font-weight:bold;padding:.5rem;background:#f3f3f3}
.descargas a{display:inline-block;margin:.5rem .5rem .5rem 0;padding:.5rem 1rem;border:1px solid #333;border-radius:.3rem;text-decoration:none;color:#222}`;

export interface PageInput {
  origin: string;
  company: Company;
  receipt: Receipt;
  view: ReceiptView;
  /** The E32's crédito fiscal request waiting for the issuer, or approved (requests.ts). */
  request?: Pick<CreditoFiscalRequestRow, "status" | "e31"> | undefined;
}

function linesTable(view: ReceiptView): string {
  const rows = view.lines
    .map(
      (line) =>
        `<tr><td>${esc(line.cantidad)}</td><td>${line.exento ? "E " : ""}${esc(line.descripcion)}</td><td class="num">${esc(formatAmount(line.precio))}</td><td class="num">${esc(formatAmount(line.valor))}</td></tr>`,
    )
    .join("");
  const totals = view.totals
    .map(
      ([label, amount]) =>
        `<tr><th colspan="3">${esc(label)}</th><td class="num">${esc(formatAmount(amount))}</td></tr>`,
    )
    .join("");
  return `<table aria-label="Detalle"><thead><tr><th>Cantidad</th><th>Descripción</th><th class="num">Precio</th><th class="num">Valor</th></tr></thead><tbody>${rows}</tbody><tfoot>${totals}</tfoot></table>`;
}

/**
 * On an E32 DGII accepted: the buyer's request for a crédito fiscal invoice (credito-fiscal.ts),
 * a plain form posting to this same address with its security code.
 */
function creditoFiscalForm({ company, receipt, origin, request }: PageInput): string {
  if (receipt.tipoeCF !== "32" || (receipt.status !== "accepted" && receipt.status !== "conditional")) return "";
  if (request?.status === "issued")
    return `<p class="credito-fiscal" data-solicitud="aprobada">Su factura de crédito fiscal ${esc(request.e31 ?? "")} fue emitida.</p>`;
  if (request)
    return `<p class="credito-fiscal" data-solicitud="pendiente">Su solicitud de factura de crédito fiscal está esperando la aprobación de ${esc(company.tradeName ?? company.legalName)}. Vuelva a esta página más tarde.</p>`;
  const action = receiptPartUrl(origin, company.rnc, receipt.encf, receipt.securityCode, "credito-fiscal");
  return `<form method="post" action="${esc(action)}" class="credito-fiscal"><h2>¿Necesita factura con crédito fiscal?</h2>
<p>Escriba el RNC o la cédula de su empresa y recibirá una factura de crédito fiscal con estos mismos productos y montos.</p>
<label>RNC o cédula <input name="rncComprador" inputmode="numeric" pattern="[0-9]{9}|[0-9]{11}" required></label>
<label>Correo electrónico (opcional) <input name="email" type="email" maxlength="80" autocomplete="email"></label>
<button type="submit">Solicitar factura de crédito fiscal</button></form>`;
}

/** The whole page for one receipt. */
export function receiptPage(input: PageInput): string {
  const { origin, company, receipt, view } = input;
  const issuer = company.tradeName ?? company.legalName;
  const estado = estadoOf(receipt.status, receipt.trackId !== null).estado;
  const download = (file: "pdf" | "xml") =>
    receiptPartUrl(origin, company.rnc, receipt.encf, receipt.securityCode, file);
  const e = view.emisor;
  const place = [e.direccion, e.municipio, e.provincia].filter(Boolean).join(", ");
  const comprador = view.comprador?.rnc
    ? `<p>Cliente: ${esc(view.comprador.razonSocial)} (RNC ${esc(view.comprador.rnc)})</p>`
    : "";
  const modifica = view.ncfModificado ? `<p>Modifica el comprobante ${esc(view.ncfModificado)}</p>` : "";
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(view.tipoEnPalabras)} ${esc(receipt.encf)} · ${esc(issuer)}</title><style>${STYLE}</style></head>
<body><header><h1>${esc(issuer)}</h1><p>${esc(e.razonSocial)} · RNC ${esc(e.rnc)}${place ? ` · ${esc(place)}` : ""}</p></header>
<main><h2>${esc(view.tipoEnPalabras)}</h2><p>Comprobante <strong data-encf>${esc(receipt.encf)}</strong> del ${esc(e.fechaEmision)}</p>
${comprador}${modifica}<p class="estado" data-estado="${esc(estado)}">${esc(ESTADO_EN_PALABRAS[estado] ?? estado)}</p>
${linesTable(view)}
<p>Código de seguridad: <strong>${esc(receipt.securityCode)}</strong> · Fecha de firma digital: ${esc(receipt.fechaHoraFirma)}</p>
<p><a href="${esc(receipt.timbreUrl)}" rel="noreferrer">Verificar este comprobante en la DGII</a></p>
${creditoFiscalForm(input)}
<nav class="descargas"><a href="${esc(download("pdf"))}" download>Descargar el PDF</a><a href="${esc(download("xml"))}" download>Descargar el XML firmado</a></nav>
</main></body></html>`;
}
