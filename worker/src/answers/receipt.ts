// A receipt's answer, built from its stored row alone (no I/O): the body and status the API sends
// for it, and the payload its webhook events carry.
import { approvalEstadoOf, buyerDeliveryStateOf, estadoOf } from "../ledger/month/estado.ts";
import type { AnswerStatus, IssueAnswer } from "./receipt-schema.ts";
import type { EmailRecord, Receipt } from "../ledger/rows.ts";
import { DEFAULT_RETRY_AFTER_SECONDS } from "../errors/problem.ts";

/**
 * The one answer shape for a receipt, whatever produced it (a first issue, a resend, a status
 * query). HTTP 200 once DGII has judged it, 202 while in process, 503 in contingency: the client
 * has everything to print it and must not send the same e-NCF again.
 */
export function receiptAnswerOf(
  receipt: Receipt,
  options: { reenviado?: boolean } = {},
): { status: AnswerStatus; body: IssueAnswer; retryAfter?: number } {
  const { estado, codigo } = estadoOf(receipt.status, Boolean(receipt.trackId));
  const reenviado = options.reenviado ?? false;
  const base = `/fe/recepcion/ecf/${receipt.encf}`;
  const body: IssueAnswer = {
    codigo: reenviado && (estado === "Aceptado" || estado === "Aceptado Condicional") ? "0" : codigo,
    estado,
    encf: receipt.encf,
    fechaEmision: receipt.issueDate,
    trackId: receipt.trackId,
    codigoSeguridad: receipt.securityCode,
    fechaHoraFirma: receipt.fechaHoraFirma,
    urlTimbre: receipt.timbreUrl,
    mensajes: receipt.dgiiMensajes ? (JSON.parse(receipt.dgiiMensajes) as IssueAnswer["mensajes"]) : [],
    reenviado,
    links: { self: base, xml: `${base}/xml`, pdf: `${base}/pdf` },
  };
  if (receipt.deliveryStatus) {
    body.buyerDelivery = {
      state: buyerDeliveryStateOf(receipt.deliveryStatus),
      at: receipt.deliveryAt,
      arecfEstado: receipt.deliveryArecfEstado,
      codigoMotivoNoRecibido: receipt.deliveryMotivo,
      attempts: receipt.deliveryAttempts,
      detail: receipt.deliveryDetail,
    };
  }
  if (receipt.emails) {
    const emails = JSON.parse(receipt.emails) as EmailRecord[];
    body.emails = emails.map((e) => ({ to: e.to, at: e.at, state: e.outcome, detail: e.detail }));
  }
  if (receipt.approvalStatus === "accepted" || receipt.approvalStatus === "rejected") {
    body.aprobacionComercial = {
      estado: approvalEstadoOf(receipt.approvalStatus),
      motivo: receipt.approvalReason,
      fechaHoraAprobacionComercial: receipt.approvalAt,
    };
  }
  const status: AnswerStatus = estado === "Contingencia" ? 503 : estado === "En Proceso" ? 202 : 200;
  if (status !== 503) return { status, body };
  // In contingency the ledger sends the receipt again at nextAttemptAt: ask about it after that.
  const untilNextAttempt = receipt.nextAttemptAt ? (Date.parse(receipt.nextAttemptAt) - Date.now()) / 1000 : Number.NaN;
  return {
    status,
    body,
    retryAfter: Number.isFinite(untilNextAttempt)
      ? Math.max(1, Math.ceil(untilNextAttempt))
      : DEFAULT_RETRY_AFTER_SECONDS,
  };
}
