// Issuing a receipt on the device: number from a leased block, complete and check with the shared
// validator, serialize, sign with the device's non-extractable key, and record sale + outbox in one
// transaction. Online and offline take this same path; the upload happens afterwards (sync).
import { dec, formatMoney } from "@ecf/shared/money";
import { signEcfXml } from "@ecf/shared/signing/fast-signer";
import { securityCode, timbreForSignedEcf, timbreUrl } from "@ecf/shared/signing/timbre";
import { drIsoDate } from "@ecf/shared/dgii-time";
import { fechaHoraFirma } from "@ecf/shared/signing/fecha-firma";
import { validateEcf } from "@ecf/shared/validate";
import { ecfToXml } from "@ecf/shared/xml/serialize";
import type { DgiiEnvironment } from "@ecf/shared/tipos";
import { verifyRncOrCedula } from "@ecf/shared/ids";
import type { PosDatabase, Sale, SigningKeyRecord } from "../db.ts";
import { giveUpNumber, peekNumber, takeNumber, type TakenNumber } from "../leases.ts";
import { signingKey } from "../signing/keystore.ts";
import { cartTotals, draftDocument, type DraftInput } from "./document.ts";
import { judgeRefund } from "./refund.ts";

export class SaleProblem extends Error {
  override name = "SaleProblem";
  constructor(
    message: string,
    readonly problems: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export interface IssueInput extends Omit<DraftInput, "encf" | "expiresOn"> {
  environment: DgiiEnvironment;
  online: boolean;
  /** The pairing that signs it; its token uploads the receipt. */
  deviceId?: string;
  /** The open shift it is rung up in (the till asks for one before selling). */
  shiftId?: string;
  now?: Date;
}

export interface Issued {
  sale: Sale;
  signedXml: string;
  seq: number;
}

export async function issueReceipt(db: PosDatabase, input: IssueInput): Promise<Issued> {
  const now = input.now ?? new Date();
  const key = await signingKey(db);
  if (!key)
    throw new SaleProblem(
      "Este dispositivo no tiene clave de firma: toque el aviso de firma e ingrese el código que genera el emisor.",
    );
  if (input.lines.length === 0) throw new SaleProblem("El carrito está vacío.");

  const buyerId = input.buyer?.rnc ? verifyRncOrCedula(input.buyer.rnc) : undefined;
  if (buyerId && !buyerId.ok && buyerId.reason === "format") {
    throw new SaleProblem("El RNC debe tener 9 dígitos (o 11 una cédula).", [
      { path: "/Encabezado/Comprador/RNCComprador", message: "Formato inválido" },
    ]);
  }

  if (input.shiftId && (await db.shifts.get(input.shiftId))?.state !== "open")
    throw new SaleProblem("El turno está cerrado: abra un turno para vender.");

  if (input.reference) {
    // Checked before a number is taken: a refused return wastes no e-NCF.
    const original = await db.sales.where("encf").equals(input.reference.encf).first();
    if (!original) throw new SaleProblem(`${input.reference.encf} no es un comprobante de este dispositivo.`);
    const verdict = await judgeRefund(db, original, formatMoney(cartTotals(input.lines, "34").total));
    if (!verdict.ok) throw new SaleProblem(verdict.message);
  }

  // The whole sale is checked against the number it would get before that number is spent: a sale
  // the validator refuses (an E32 of 250,000 or more without a buyer, say) takes no number.
  const next = await peekNumber(db, input.tipoeCF, drIsoDate(now));
  if (next) checkedDocument(input, next, now);
  const number = await takeNumber(db, input.tipoeCF, drIsoDate(now), now);
  try {
    return await signAndRecord(db, input, number, now, key);
  } catch (error) {
    // A number once taken is never reused: remember it so it can be voided (ANECF).
    await giveUpNumber(db, number.encf);
    throw error;
  }
}

/** The completed document for `number`, or a SaleProblem with the validator's errors in Spanish. */
function checkedDocument(
  input: IssueInput,
  number: Pick<TakenNumber, "encf" | "expiresOn">,
  now: Date,
): Record<string, unknown> {
  const draft = draftDocument({ ...input, encf: number.encf, expiresOn: number.expiresOn });
  // The signing time is also the one FechaHoraFirma and the QR carry.
  draft.FechaHoraFirma = fechaHoraFirma(now);
  const checked = validateEcf(draft, {
    now,
    eNCF: number.encf,
    ...(input.reference
      ? {
          modifiedReceipt: {
            eNCF: input.reference.encf,
            fechaEmision: input.reference.fechaEmision,
            montoTotal: input.reference.montoTotal,
          },
        }
      : {}),
  });
  const errors = checked.problems.filter((p) => p.severity === "error");
  if (errors.length) {
    throw new SaleProblem(
      `El comprobante tiene errores: ${errors.map((p) => p.messageEs ?? p.message).join("; ")}`,
      errors.map((p) => ({ path: p.path, message: p.messageEs ?? p.message })),
    );
  }
  return checked.document;
}

async function signAndRecord(
  db: PosDatabase,
  input: IssueInput,
  number: TakenNumber,
  now: Date,
  key: SigningKeyRecord,
): Promise<Issued> {
  const document = checkedDocument(input, number, now);
  const signedXml = await signEcfXml(ecfToXml(document), key.key, key.certificate);
  const totales = (document.Encabezado as { Totales: { MontoTotal: string } }).Totales;
  const sale: Sale = {
    id: crypto.randomUUID(),
    createdAt: now.toISOString(),
    encf: number.encf,
    document,
    estado: input.online ? "Pendiente" : "Contingencia",
    securityCode: securityCode(signedXml),
    fechaHoraFirma: document.FechaHoraFirma as string,
    timbreUrl: timbreUrl(timbreForSignedEcf(signedXml, input.environment)),
    montoTotal: formatMoney(dec(totales.MontoTotal)),
    ...(input.payment ? { payment: input.payment } : {}),
    ...(input.reference ? { modifies: input.reference.encf } : {}),
    ...(input.shiftId ? { shiftId: input.shiftId } : {}),
  };
  const seq = await db.recordSignedSale(sale, {
    saleId: sale.id,
    encf: number.encf,
    signedXml,
    ...(input.deviceId ? { deviceId: input.deviceId } : {}),
  });
  return { sale, signedXml, seq };
}
