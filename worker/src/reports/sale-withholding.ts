// A buyer's withholding on one of the issuer's sales (607 columns 7, 10 and 12): the buyer
// withholds when it pays, so only the issuer can say when (its certificate of withholding) and,
// if it differs from what the e-CF declared, how much.
import { z } from "@hono/zod-openapi";
import { compare, dec, formatMoney } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import type { ProblemItem } from "../errors/problem.ts";
import { refuse } from "../errors/refusal.ts";
import { findReceipt, monthOfReceipt } from "../ledger/client.ts";
import { SALES_TYPES } from "./dgii-607.ts";
import { figuresOfRow } from "../ledger/figures-backfill.ts";

const amount = (description: string) =>
  z
    .union([z.string(), z.number()])
    .refine((v) => /^\d{1,16}(\.\d{1,2})?$/.test(String(v)), "expected an amount ≥ 0 with at most 2 decimals")
    .nullable()
    .optional()
    .openapi({ description: `${description}; null: as the e-CF declares it`, example: "540.00" });

export const SaleWithholdingBody = z
  .object({
    fechaRetencion: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "expected yyyy-MM-dd")
      .refine(
        (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
        "not a calendar date",
      )
      .nullable()
      .optional()
      .openapi({
        description: "Fecha de Retención (607 column 7), yyyy-MM-dd: when the buyer withheld (paid)",
        example: "2026-05-28",
      }),
    itbisRetenidoTerceros: amount("ITBIS Retenido por Terceros (607 column 10)"),
    retencionRentaTerceros: amount("Retención Renta por Terceros (607 column 12)"),
  })
  .strict()
  .openapi("SaleWithholding");

export type SaleWithholdingInput = z.infer<typeof SaleWithholdingBody>;

export interface SaleWithholding {
  encf: string;
  fechaRetencion: string | null;
  /** What the 607 reports, and whether the issuer gave it ("sale") or the e-CF declares it ("document"). */
  itbisRetenidoTerceros: string | null;
  retencionRentaTerceros: string | null;
  sources: { itbisRetenidoTerceros: WithholdingSource | null; retencionRentaTerceros: WithholdingSource | null };
}

export type WithholdingSource = "sale" | "document";

/** PATCH /ventas/{encf}: a merge patch (absent keeps, null clears). */
export async function recordSaleWithholding(
  env: Env,
  company: Company,
  encf: string,
  body: SaleWithholdingInput,
): Promise<SaleWithholding> {
  const receipt = await findReceipt(env, company.id, encf);
  if (!receipt) throw refuse("not_found", { detail: `No receipt ${encf} for this issuer.` });
  if (!(SALES_TYPES as readonly string[]).includes(receipt.tipoeCF)) {
    throw refuse("not_allowed", {
      detail: `${encf} is an E${receipt.tipoeCF}: only sales (the 607's types) are withheld on by a buyer.`,
    });
  }
  const month = monthOfReceipt(env, receipt);
  const figures = await figuresOfRow(env, month, "receipts", receipt);
  const keep = <T>(given: T | undefined, current: T) => (given === undefined ? current : given);
  const asMoney = (v: string | number | null) => (v === null ? null : formatMoney(dec(String(v))));
  const next = {
    fechaRetencion: keep(body.fechaRetencion, receipt.fechaRetencion),
    itbisRetenidoTerceros:
      body.itbisRetenidoTerceros === undefined ? receipt.itbisRetenidoTerceros : asMoney(body.itbisRetenidoTerceros),
    retencionRentaTerceros:
      body.retencionRentaTerceros === undefined ? receipt.retencionRentaTerceros : asMoney(body.retencionRentaTerceros),
  };
  const problems: ProblemItem[] = [];
  if (next.fechaRetencion && next.fechaRetencion < receipt.issueDate)
    problems.push({
      path: "/fechaRetencion",
      code: "before_issue_date",
      message: `fechaRetencion is before the receipt's FechaEmision (${receipt.issueDate}).`,
    });
  if (next.itbisRetenidoTerceros && compare(dec(next.itbisRetenidoTerceros), dec(figures.itbisFacturado)) > 0) {
    problems.push({
      path: "/itbisRetenidoTerceros",
      code: "exceeds_document",
      message: `More than the ITBIS facturado (${figures.itbisFacturado}).`,
    });
  }
  if (next.retencionRentaTerceros && compare(dec(next.retencionRentaTerceros), dec(figures.montoFacturado)) > 0) {
    problems.push({
      path: "/retencionRentaTerceros",
      code: "exceeds_document",
      message: `More than the amount without taxes (${figures.montoFacturado}).`,
    });
  }
  if (problems.length) throw refuse("invalid", { detail: `The withholding does not fit ${encf}.`, errors: problems });
  const stored = (await month.reports().recordSaleWithholding(encf, next))!;
  const effective = (own: string | null, declared: string | null) => ({
    value: own ?? declared,
    source: own !== null ? ("sale" as const) : declared !== null ? ("document" as const) : null,
  });
  const itbis = effective(stored.itbisRetenidoTerceros, figures.itbisRetenido);
  const renta = effective(stored.retencionRentaTerceros, figures.retencionRenta);
  return {
    encf,
    fechaRetencion: stored.fechaRetencion,
    itbisRetenidoTerceros: itbis.value,
    retencionRentaTerceros: renta.value,
    sources: { itbisRetenidoTerceros: itbis.source, retencionRentaTerceros: renta.source },
  };
}
