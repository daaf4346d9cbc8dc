import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { companies } from "../db/tables.ts";
import { devices } from "../db/devices-tables.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";
import { DEVICE_TOKEN_PREFIX, hashDeviceToken } from "./credentials.ts";

export type Device = typeof devices.$inferSelect;

/** The device routes' environment: AppEnv plus the authenticated device. */
export interface DeviceEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { device: Device };
}

/**
 * Requires `Authorization: Bearer dvt_…`. The device row is read on every request, so revoking a
 * device ends its token at once. A revoked device is told so (`deviceRevoked: true`): the POS then
 * deletes its signing key.
 */
export const requireDevice = deviceMiddleware(false);

/**
 * For handing over receipts only (upload and state): a revoked device still authenticates, and
 * the upload accepts only receipts inside its own leases whose FechaHoraFirma precedes the
 * revocation. Why this rather than moving the leases to a new pairing: receipts signed offline
 * before the revocation were printed and handed to customers, so they are the issuer's whatever
 * happens to the till; the device sends them by itself at its next sync, with no administrator
 * step and no way to tie a new pairing to the old device. The token can do nothing else (no
 * leases, no key, no status), and the till deletes its key as soon as it learns of the revocation.
 * The hand-over lasts HANDOVER_AFTER_REVOCATION_MS: FechaHoraFirma is the device's own word, so a
 * till that is never to be trusted again (stolen, say) cannot keep backdating receipts for ever.
 */
export const requireDeviceForReceipts = deviceMiddleware(true);

/** How long after its revocation a device may still hand over what it signed before (7 days). */
export const HANDOVER_AFTER_REVOCATION_MS = 7 * 24 * 3_600_000;

function deviceMiddleware(allowRevoked: boolean) {
  return createMiddleware<DeviceEnv>(async (c, next) => {
    const token = /^Bearer\s+(\S+)$/.exec(c.req.header("Authorization") ?? "")?.[1];
    if (!token?.startsWith(DEVICE_TOKEN_PREFIX)) {
      throw new ApiProblem("unauthorized", {
        detail: "Device routes need 'Authorization: Bearer <device token>' from POST /devices/pair.",
      });
    }
    const db = database(c.env.DB);
    const device = await db.query.devices.findFirst({ where: eq(devices.tokenHash, await hashDeviceToken(token)) });
    if (!device) throw new ApiProblem("unauthorized", { detail: "The device token is not valid." });
    const handingOver =
      allowRevoked &&
      device.revokedAt !== null &&
      Date.now() - Date.parse(device.revokedAt) < HANDOVER_AFTER_REVOCATION_MS;
    if (device.revokedAt && !handingOver) {
      throw new ApiProblem("unauthorized", {
        detail: `This device was revoked on ${device.revokedAt}; delete its signing key and pair it again.`,
        extensions: { deviceRevoked: true },
      });
    }
    const company = await db.query.companies.findFirst({ where: eq(companies.id, device.companyId) });
    if (!company?.isActive) throw new ApiProblem("forbidden", { detail: "The issuer of this device is not active." });
    c.set("device", device);
    c.set("tenant", company as Company);
    await next();
  });
}
