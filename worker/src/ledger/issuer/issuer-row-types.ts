// The issuer object's rows as the worker reads them (ledger/rows.ts hands them on to the rest).
import type { deviceLeases, sequences } from "./issuer-tables.ts";

export type Sequence = typeof sequences.$inferSelect;
export type Lease = Pick<typeof deviceLeases.$inferSelect, "tipoeCF" | "rangeFrom" | "rangeTo" | "expiresOn">;

/** A validation warning kept with an idempotency key (the answer to a retry repeats it). */
export interface StoredWarning {
  path: string;
  code: string;
  message: string;
  messageEs?: string;
}
