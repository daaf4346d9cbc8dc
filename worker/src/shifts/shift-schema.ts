// What a till sends about a shift (cuadre de caja) and what the server answers: the request and
// response schemas of PUT /devices/shifts/{id}. Amounts are decimal strings with 2 decimals, as
// the till computed them with the shared package's half-up rounding.
import { z } from "@hono/zod-openapi";

const money = (description: string) =>
  z
    .string()
    .regex(/^\d{1,14}\.\d{2}$/, "expected an amount with 2 decimals, e.g. 118.00")
    .openapi({ description, example: "118.00" });
const signedMoney = (description: string) =>
  z
    .string()
    .regex(/^-?\d{1,14}\.\d{2}$/, "expected an amount with 2 decimals, e.g. -5.00")
    .openapi({ description, example: "-5.00" });
const count = z.number().int().min(0).max(1_000_000);
const instant = (description: string) =>
  z.iso.datetime({ offset: true }).openapi({ description, example: "2026-11-25T13:05:00.000Z" });

/** The till's payment methods (pos-client/src/sale/document.ts); a mixed payment counts in each. */
export const SHIFT_PAYMENT_METHODS = ["efectivo", "tarjeta", "transferencia"] as const;

export const ZReportSchema = z
  .object({
    receipts: z
      .array(
        z.object({
          tipoeCF: z.string().regex(/^\d{2}$/, "expected an e-CF type, e.g. 32"),
          count,
          total: money("MontoTotal summed"),
        }),
      )
      .max(20)
      .openapi({
        description:
          "Receipts of the shift by e-CF type (E34 credit notes included), with their count and MontoTotal summed",
      }),
    payments: z
      .array(z.object({ method: z.enum(SHIFT_PAYMENT_METHODS), count, total: money("Amount taken by this method") }))
      .max(SHIFT_PAYMENT_METHODS.length)
      .openapi({
        description: "What the sales took by payment method (a mixed payment counts in each of its methods)",
      }),
    salesCount: count.openapi({ description: "Sales (every receipt but E34)" }),
    salesTotal: money("MontoTotal of the sales"),
    itbisTotal: money("TotalITBIS of the sales"),
    refunds: z.object({
      count,
      total: money("MontoTotal of the E34 credit notes"),
      itbis: money("TotalITBIS of the E34 credit notes"),
    }),
    cashSales: money("Cash taken by the sales"),
    cashRefunds: money("Cash handed back on refunds"),
    expectedCash: signedMoney("openingFloat + cashSales − cashRefunds"),
    countedCash: money("What the cashier counted in the drawer"),
    difference: signedMoney("countedCash − expectedCash: negative when cash is missing"),
  })
  .openapi("ZReport");
export type ZReport = z.infer<typeof ZReportSchema>;

export const ShiftBodySchema = z
  .object({
    cashierId: z.string().min(1).max(64).openapi({ description: "The cashier who opened the shift (GET /cashiers)" }),
    cashierName: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .openapi({ description: "The cashier's name when the shift was opened" }),
    openedAt: instant("When the shift was opened on the till; fixes its day and month"),
    openingFloat: money("Cash in the drawer at opening (fondo de caja)"),
    closedAt: instant("When the shift was closed; with countedCash and report").optional(),
    countedCash: money("Cash counted at closing").optional(),
    report: ZReportSchema.optional(),
  })
  .openapi("ShiftUpload");
export type ShiftBody = z.infer<typeof ShiftBodySchema>;

export const ShiftViewSchema = z
  .object({
    id: z.string(),
    deviceId: z.string(),
    cashierId: z.string(),
    cashierName: z.string(),
    state: z.enum(["open", "closed"]),
    businessDay: z.string().openapi({ description: "The Santo Domingo day the shift was opened (yyyy-MM-dd)" }),
    openedAt: z.string(),
    closedAt: z.string().nullable(),
    openingFloat: z.string(),
    countedCash: z.string().nullable(),
    expectedCash: z.string().nullable(),
    difference: z.string().nullable(),
    report: ZReportSchema.nullable(),
  })
  .openapi("Shift");
export type ShiftView = z.infer<typeof ShiftViewSchema>;
