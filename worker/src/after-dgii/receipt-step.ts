// What the month object's alarm does with one due receipt: move it forward with DGII (send,
// recover through consultatrackids, or poll once), and put a rejection that nobody was waiting
// for in the issuer's audit log.
import { writeAudit } from "../ledger/client.ts";
import { isFinal } from "../ledger/month/estado.ts";
import type { Company } from "../db/tables.ts";
import type { Receipt } from "../ledger/rows.ts";
import { archivedXml, transmitReceipt, type ReceiptStore } from "../issuing/transmit.ts";

/** A rejection DGII gave while nobody was waiting for the answer goes to the issuer's audit log. */
async function auditOutcome(env: Env, before: Receipt, after: Receipt, now: Date): Promise<void> {
  if (after.status !== "rejected" || before.status === "rejected") return;
  const mensajes = after.dgiiMensajes
    ? (JSON.parse(after.dgiiMensajes) as { codigo: string | null; valor: string }[])
    : [];
  const reasons = mensajes.map((m) => (m.codigo ? `${m.codigo}: ${m.valor}` : m.valor)).join("; ");
  await writeAudit(
    env,
    after.companyId,
    {
      actor: "alarm",
      action: "ALARM ledger",
      code: "dgii_rejected",
      status: 200,
      detail: `${after.encf}: ${reasons} (was ${before.status === "contingency" ? "in contingency" : "in process"})`,
      requestId: `alarm:${after.id}:${after.retries}`,
    },
    now,
  );
}

/** One step for a receipt the alarm holds (`company`: its issuer, when the alarm read it already); returns it as it is afterwards. */
export async function moveForward(
  env: Env,
  receipt: Receipt,
  store: ReceiptStore,
  now: Date,
  company?: Company,
): Promise<Receipt> {
  if (isFinal(receipt.status)) return receipt;
  const after = await transmitReceipt(env, store, receipt, await archivedXml(env, receipt), {
    delays: [0],
    now,
    company,
  });
  await auditOutcome(env, receipt, after, now);
  return after;
}
