// What the issuer (or the administrator) allows one till to do: for now, whether its cashiers may
// change a product's price at the counter. The till reads it with every catalogue pull.
import { and, eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { devices } from "../db/devices-tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { DeviceRow } from "./registry.ts";

export interface DeviceSettings {
  canEditPrices: boolean;
}

/** Changes a device of `companyId`; another issuer's device is not found (it is not theirs to see). */
export async function updateDeviceSettings(
  d1: D1Database,
  companyId: string,
  id: string,
  settings: Partial<DeviceSettings>,
): Promise<DeviceRow> {
  const db = database(d1);
  const where = and(eq(devices.id, id), eq(devices.companyId, companyId));
  const [row] = Object.keys(settings).length
    ? await db.update(devices).set(settings).where(where).returning()
    : await db.select().from(devices).where(where);
  if (!row) throw new ApiProblem("not_found", { detail: `No device ${id} of this issuer.` });
  return row;
}
