// Who may make a till hold the issuer's signing key (Ley 32-23 Art. 6: the certificate stays under
// its holder's exclusive control). A till registered by the holder's side (an owner, the company's
// API key, the operator) receives it at pairing; one a manager registered waits for an owner's
// approval. Each handover is written to the audit log and announced: the webhook event
// device.key_handed_over and an e-mail to the company's owners.
import { drMonth } from "@ecf/shared";
import { and, eq, isNull } from "drizzle-orm";
import { database } from "../db/client.ts";
import { consoleMemberships, consoleUsers } from "../db/console-tables.ts";
import { devices } from "../db/devices-tables.ts";
import type { Company } from "../db/tables.ts";
import type { Principal } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { receiptMonth, writeAudit } from "../ledger/client.ts";
import { sendConsoleEmail } from "../console/mail.ts";
import { wrapForTill, type WrappedKey } from "./key-wrapping.ts";
import { openPrivateKey } from "../certificates/vault.ts";

type DeviceRow = typeof devices.$inferSelect;

/** Who registers a till, and whether its key then waits for an owner: only a manager's does. */
export function registrant(principal: Principal | undefined): {
  createdBy: string;
  keyApproval: "pending" | "not_needed";
} {
  if (!principal) return { createdBy: "admin", keyApproval: "not_needed" };
  if (principal.console) {
    const keyApproval = principal.console.role === "owner" ? "not_needed" : "pending";
    return { createdBy: principal.keyId, keyApproval };
  }
  return { createdBy: `key:${principal.keyId}`, keyApproval: "not_needed" };
}

/** Whether the key may go to this till now: approved or never needing it, and paired with a public key. */
export const keyMayGo = (device: DeviceRow) => device.keyApproval !== "pending" && !!device.tillPublicKey;

/** An owner's (or the company key's) consent for a manager's till to receive the key. */
export async function approveDevice(
  env: Env,
  company: Company,
  id: string,
  actor: string,
  requestId: string,
  now: Date,
): Promise<DeviceRow> {
  const db = database(env.DB);
  const [row] = await db
    .update(devices)
    .set({ keyApproval: "granted", approvedBy: actor, approvedAt: now.toISOString() })
    .where(
      and(
        eq(devices.id, id),
        eq(devices.companyId, company.id),
        eq(devices.keyApproval, "pending"),
        isNull(devices.revokedAt),
      ),
    )
    .returning();
  if (!row) {
    const device = await db.query.devices.findFirst({
      where: and(eq(devices.id, id), eq(devices.companyId, company.id)),
    });
    if (!device) throw new ApiProblem("not_found", { detail: `No device ${id} of this issuer.` });
    throw new ApiProblem("conflict", {
      detail: device.revokedAt ? `Device ${id} is revoked.` : `Device ${id} needs no approval (${device.keyApproval}).`,
    });
  }
  await writeAudit(env, company.id, {
    actor,
    action: `POST /tills/${id}/approve`,
    code: "device_key_approved",
    status: 200,
    detail: `${actor} approved till "${row.name}" (${id}) to receive the signing key.`,
    requestId,
  });
  return row;
}

/**
 * Hands the key over to the till, wrapped to its own public key, and records and announces it.
 * The caller has consumed what allowed it (a pairing or re-key code, or the first fetch after an
 * owner's approval) in one conditional update, so a handover happens once per consent.
 */
export async function handOverKey(
  env: Env,
  company: Company,
  device: DeviceRow,
  context: { actor: string; action: string; requestId: string; now: Date },
): Promise<{ wrapped: WrappedKey; certificate: string }> {
  if (!keyMayGo(device))
    throw new ApiProblem("forbidden", {
      detail: "The signing key reaches this till only after an owner approves it (POST /tills/{id}/approve).",
      errors: [{ path: "", code: "owner_approval_pending", message: "Waiting for an owner's approval." }],
    });
  const { pkcs8, certificate } = await signingPkcs8(env, company);
  const wrapped = await wrapForTill(pkcs8, device.tillPublicKey!);
  pkcs8.fill(0);
  const at = context.now.toISOString();
  await database(env.DB).update(devices).set({ keyHandedOverAt: at }).where(eq(devices.id, device.id));
  await announceHandover(env, company, device, context);
  return { wrapped, certificate };
}

/** The issuer's private key in clear, for the envelope only (zeroed by the caller). */
async function signingPkcs8(env: Env, company: Company): Promise<{ pkcs8: Uint8Array; certificate: string }> {
  if (!company.certificateKeyEncrypted || !company.certificateDer) {
    throw new ApiProblem("unprocessable", {
      detail: `Issuer ${company.rnc} has no signing certificate yet; upload one before pairing a till.`,
    });
  }
  const pkcs8 = await openPrivateKey(company.certificateKeyEncrypted, env.MASTER_KEY, company.id);
  return { pkcs8, certificate: company.certificateDer };
}

async function announceHandover(
  env: Env,
  company: Company,
  device: DeviceRow,
  { actor, action, requestId, now }: { actor: string; action: string; requestId: string; now: Date },
): Promise<void> {
  const detail = `Till "${device.name}" (${device.id}) received the signing key of certificate ${company.certificateSerial ?? "?"}.`;
  await writeAudit(env, company.id, { actor, action, code: "device_key_handed_over", status: 200, detail, requestId });
  await receiptMonth(env, company.id, drMonth(now))
    .followUp()
    .emit(company.id, `device:${device.id}`, {
      type: "device.key_handed_over",
      timestamp: now.toISOString(),
      data: {
        rncEmisor: company.rnc,
        deviceId: device.id,
        deviceName: device.name,
        createdBy: device.createdBy,
        approvedBy: device.approvedBy,
        certificateSerial: company.certificateSerial,
      },
    });
  const owners = await ownerEmails(env, company.id);
  await sendConsoleEmail(env, owners, `La caja "${device.name}" recibió la firma de ${company.legalName}`, [
    `Hola:`,
    ``,
    `La caja "${device.name}" de ${company.legalName} (RNC ${company.rnc}) recibió la llave de firma el` +
      ` ${now.toISOString().slice(0, 16).replace("T", " ")} (UTC).`,
    `Si usted no lo esperaba, revoque la caja en la consola (Tienda) y cambie el certificado de firma.`,
  ]);
}

async function ownerEmails(env: Env, companyId: string): Promise<string[]> {
  const rows = await database(env.DB)
    .select({ email: consoleUsers.email })
    .from(consoleMemberships)
    .innerJoin(consoleUsers, eq(consoleUsers.id, consoleMemberships.userId))
    .where(and(eq(consoleMemberships.companyId, companyId), eq(consoleMemberships.role, "owner")));
  return rows.map((r) => r.email);
}
