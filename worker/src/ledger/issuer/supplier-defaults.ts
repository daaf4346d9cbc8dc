// The issuer's 606 defaults per supplier (issuer object, `supplier_defaults`). One the issuer set
// stays until the issuer changes or deletes it; a learned one follows the last classification.
import { eq, inArray } from "drizzle-orm";
import type { IssuerDb } from "./encf-allocation.ts";
import { supplierDefaults } from "./issuer-tables.ts";

export type SupplierDefault = typeof supplierDefaults.$inferSelect;
export type SupplierDefaultValues = Omit<SupplierDefault, "rncEmisor" | "origin" | "updatedAt">;

export function supplierDefaultsOf(db: IssuerDb, rncs: string[]): SupplierDefault[] {
  const found: SupplierDefault[] = [];
  // SQLite binds at most 100 parameters per statement.
  for (let i = 0; i < rncs.length; i += 100)
    found.push(
      ...db
        .select()
        .from(supplierDefaults)
        .where(inArray(supplierDefaults.rncEmisor, rncs.slice(i, i + 100)))
        .all(),
    );
  return found;
}

export function setSupplierDefault(db: IssuerDb, rncEmisor: string, values: SupplierDefaultValues): SupplierDefault {
  const row = { ...values, rncEmisor, origin: "set" as const, updatedAt: new Date().toISOString() };
  return db
    .insert(supplierDefaults)
    .values(row)
    .onConflictDoUpdate({ target: supplierDefaults.rncEmisor, set: row })
    .returning()
    .get()!;
}

/**
 * Takes what a classification gave (null: not given, the default's value stays) unless the issuer
 * set this supplier's defaults itself; answers the default as it is now.
 */
export function learnSupplierDefault(
  db: IssuerDb,
  rncEmisor: string,
  values: Partial<SupplierDefaultValues>,
): SupplierDefault | null {
  const existing = db.select().from(supplierDefaults).where(eq(supplierDefaults.rncEmisor, rncEmisor)).get();
  if (existing?.origin === "set") return existing;
  const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
  if (!existing && !Object.keys(given).length) return null;
  const empty: SupplierDefaultValues = {
    tipoBienesServicios: null,
    formaPago: null,
    tipoRetencionIsr: null,
    itbisRetenidoPorcentaje: null,
    retencionRentaPorcentaje: null,
    itbisAlCostoPorcentaje: null,
  };
  const row = {
    ...empty,
    ...existing,
    ...given,
    rncEmisor,
    origin: "learned" as const,
    updatedAt: new Date().toISOString(),
  };
  return db
    .insert(supplierDefaults)
    .values(row)
    .onConflictDoUpdate({ target: supplierDefaults.rncEmisor, set: row })
    .returning()
    .get()!;
}

export function deleteSupplierDefault(db: IssuerDb, rncEmisor: string): boolean {
  return db.delete(supplierDefaults).where(eq(supplierDefaults.rncEmisor, rncEmisor)).returning().all().length > 0;
}
