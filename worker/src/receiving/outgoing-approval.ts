// Our own commercial approval of a purchase: build and sign the ACECF, then deliver it twice, to
// the supplier's approval service (found in DGII's directory) and to DGII. The decision is
// recorded before anything is sent; each delivery's outcome is recorded as it happens, and a
// failed delivery is retried by repeating the same decision.
import { buildAcecf, dgiiDateOf, formatDgiiDateTime } from "@ecf/shared";
import { DgiiError } from "../dgii/errors.ts";
import { dgiiClientFor, dgiiTimeoutMs, signerFor } from "../dgii/for-company.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findPurchase, type MonthStub } from "../ledger/client.ts";
import type { Purchase } from "../ledger/rows.ts";
import type { Company } from "../db/tables.ts";
import { companionKey } from "./archive-keys.ts";
import { signAsCompany } from "./company-signer.ts";
import { lookUpTaxpayer } from "../dgii/directory.ts";
import { ReceiverClient } from "./receiver-client.ts";
import { NOT_EXCHANGED } from "./exchanged-types.ts";
import { purchaseCounts } from "./purchase-confirmation.ts";
import { approvalStatusOf, type ApprovalEstado } from "../ledger/month/estado.ts";
import { outboundPolicy } from "../outbound/url-policy.ts";

export type Delivery = { outcome: "sent" | "failed" | "skipped"; detail: string };

export interface ApprovalResult {
  id: string;
  encf: string;
  estado: ApprovalEstado;
  supplier: Delivery;
  dgii: Delivery;
}

const fileNameOf = (rncComprador: string, encf: string) => `${rncComprador}${encf}.xml`;

async function deliverToSupplier(
  env: Env,
  company: Company,
  rncEmisor: string,
  acecf: string,
  fileName: string,
): Promise<Delivery> {
  const timeoutMs = dgiiTimeoutMs(env);
  try {
    const signer = await signerFor(env, company);
    const entry = await lookUpTaxpayer(dgiiClientFor(env, company, signer), rncEmisor);
    if (!entry?.urlAceptacion)
      return { outcome: "skipped", detail: `Supplier ${rncEmisor} has no approval service in DGII's directory.` };
    const receiver = new ReceiverClient(company.rnc, signer, timeoutMs, outboundPolicy(env));
    const { url, response } = await receiver.post(
      entry.urlAceptacion,
      "/fe/aprobacioncomercial/api/ecf",
      acecf,
      fileName,
      entry.urlOpcional,
    );
    const text = (await response.text()).slice(0, 500);
    return response.ok
      ? { outcome: "sent", detail: `${url} → HTTP ${response.status}` }
      : { outcome: "failed", detail: `${url} → HTTP ${response.status} ${text}` };
  } catch (error) {
    return { outcome: "failed", detail: (error as Error).message.slice(0, 500) };
  }
}

async function deliverToDgii(env: Env, company: Company, acecf: string, fileName: string): Promise<Delivery> {
  try {
    const client = dgiiClientFor(env, company, await signerFor(env, company));
    const answer = await client.sendAprobacionComercial(acecf, fileName);
    return { outcome: "sent", detail: JSON.stringify(answer).slice(0, 500) };
  } catch (error) {
    const detail =
      error instanceof DgiiError
        ? `${error.message} ${error.mensajes.map((m) => m.valor).join("; ")}`
        : (error as Error).message;
    return { outcome: "failed", detail: detail.slice(0, 500) };
  }
}

/** A commercial approval cannot be changed: a purchase decided otherwise is refused. */
function refuseOtherDecision(purchase: Purchase, status: Purchase["approvalStatus"]): void {
  if (!purchase.approvalStatus || purchase.approvalStatus === status) return;
  const decided = purchase.approvalStatus === "accepted" ? "Aceptado" : "Rechazado";
  throw new ApiProblem("conflict", {
    detail: `${purchase.encf} was already ${decided}; a commercial approval cannot be changed.`,
    errors: [{ path: "/estado", code: "already_decided", message: `Already ${decided}.` }],
  });
}

/**
 * The signed ACECF of the decision: the one archived, or a new one. A new one is recorded in one
 * call that refuses a different decision on record (the first stands), before it is archived, so
 * another request's decision taken meanwhile is neither overwritten nor its ACECF replaced.
 */
async function decidedAcecf(
  env: Env,
  company: Company,
  purchase: Purchase,
  month: MonthStub,
  decision: { estado: ApprovalEstado; motivo: string | undefined; now: Date },
): Promise<string> {
  const existing = purchase.approvalKey ? await env.ARCHIVE.get(purchase.approvalKey) : null;
  if (existing) return existing.text();
  const { estado, motivo, now } = decision;
  const acecf = await signAsCompany(
    env,
    company,
    buildAcecf({
      RNCEmisor: purchase.rncEmisor,
      eNCF: purchase.encf,
      FechaEmision: dgiiDateOf(purchase.issueDate),
      MontoTotal: purchase.montoTotal,
      RNCComprador: company.rnc,
      Estado: estado === "Aceptado" ? "1" : "2",
      DetalleMotivoRechazo: estado === "Rechazado" ? motivo : undefined,
      FechaHoraAprobacionComercial: formatDgiiDateTime(now),
    }),
  );
  const key = companionKey(purchase.xmlKey, ".acecf.xml");
  const status = approvalStatusOf(estado);
  const decided = await month.purchases().decidePurchase(purchase.id, {
    approvalStatus: status,
    approvalReason: estado === "Rechazado" ? (motivo ?? null) : null,
    approvalKey: key,
    approvedAt: now.toISOString(),
  });
  if (!decided) {
    // Decided otherwise meanwhile (or gone): the decision on record stands.
    const current = await month.purchases().purchaseById(purchase.id);
    if (!current) throw new ApiProblem("not_found", { detail: `No received e-CF ${purchase.id} for this company.` });
    refuseOtherDecision(current, status);
  }
  await env.ARCHIVE.put(key, acecf, { httpMetadata: { contentType: "application/xml" } });
  return acecf;
}

/** Decides on a purchase (once; the same decision again retries failed deliveries). */
export async function approvePurchase(
  env: Env,
  company: Company,
  purchaseId: string,
  estado: ApprovalEstado,
  motivo: string | undefined,
  now: Date,
): Promise<ApprovalResult> {
  const found = await findPurchase(env, company.id, purchaseId);
  if (!found) throw new ApiProblem("not_found", { detail: `No received e-CF ${purchaseId} for this company.` });
  const { purchase, month } = found;
  if (NOT_EXCHANGED.has(purchase.tipoeCF))
    throw new ApiProblem("unprocessable", { detail: `Type ${purchase.tipoeCF} e-CF take no commercial approval.` });
  const status = approvalStatusOf(estado);
  if (estado === "Aceptado" && !purchaseCounts(purchase)) {
    throw new ApiProblem("conflict", {
      detail: `${purchase.encf} is not confirmed by DGII (${purchase.dgiiStatus}); it can be accepted once DGII knows it, or after a manual confirmation.`,
      errors: [{ path: "/estado", code: "purchase_not_confirmed", message: `DGII status: ${purchase.dgiiStatus}.` }],
    });
  }
  refuseOtherDecision(purchase, status);
  const acecf = await decidedAcecf(env, company, purchase, month, { estado, motivo, now });

  const fileName = fileNameOf(company.rnc, purchase.encf);
  const already = (outcome: string | null, detail: string | null): Delivery | undefined =>
    outcome === "sent" ? { outcome: "sent", detail: detail ?? "" } : undefined;
  const [supplier, dgii] = await Promise.all([
    already(purchase.approvalSupplierOutcome, purchase.approvalSupplierDetail) ??
      deliverToSupplier(env, company, purchase.rncEmisor, acecf, fileName),
    already(purchase.approvalDgiiOutcome, purchase.approvalDgiiDetail) ?? deliverToDgii(env, company, acecf, fileName),
  ]);
  await month.purchases().updatePurchase(purchase.id, {
    approvalSupplierOutcome: supplier.outcome,
    approvalSupplierDetail: supplier.detail,
    approvalDgiiOutcome: dgii.outcome,
    approvalDgiiDetail: dgii.detail,
  });
  return { id: purchase.id, encf: purchase.encf, estado, supplier, dgii };
}
