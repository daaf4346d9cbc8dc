// What a point-of-sale device issues, agreed between the worker (which leases it numbers) and the
// POS client (which asks for them).
import type { TipoeCF } from "./tipos.ts";

/** The types a device issues: consumer and tax-credit invoices, and credit notes for returns. */
export const POS_TIPOS = ["32", "31", "34"] as const satisfies readonly TipoeCF[];

/** Numbers in a leased block when the device does not ask for another size. */
export const DEFAULT_LEASE_SIZE = 200;
