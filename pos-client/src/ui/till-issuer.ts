// Issuing from the till's screens: a sale charged or a credit note for a return, numbered and signed
// on the device in the open shift. One at a time across both screens, whatever the keyboard repeats:
// while a receipt is being signed, a second charge or confirmation issues nothing.
import type { PosDatabase, Sale } from "../db.ts";
import type { CartLine } from "../sale/document.ts";
import type { SaleRequest } from "../sale/draft.ts";
import { issueReceipt, SaleProblem } from "../sale/issue.ts";
import type { Session } from "../session.ts";
import { currentShift } from "../shift/shifts.ts";

/** The parts of an original receipt a credit note copies. */
interface CreditedDocument {
  Encabezado: {
    Emisor: { FechaEmision: string };
    Comprador?: { RNCComprador?: string; RazonSocialComprador?: string };
  };
}

export class TillIssuer {
  private issuing = false;

  constructor(
    private readonly db: PosDatabase,
    private readonly session: Session,
  ) {}

  /** A receipt is being issued now. */
  get busy(): boolean {
    return this.issuing;
  }

  /** Runs `work` unless an issue is already under way (then nothing happens). */
  async once(work: () => Promise<void>): Promise<void> {
    if (this.issuing) return;
    this.issuing = true;
    try {
      await work();
    } finally {
      this.issuing = false;
    }
  }

  /** The sale the cashier charged, as a signed receipt of the open shift. */
  async sale(req: SaleRequest): Promise<Sale> {
    const shift = await currentShift(this.db);
    if (!shift) throw new SaleProblem("Abra un turno para vender (pestaña Turno).");
    const issued = await issueReceipt(this.db, {
      shiftId: shift.id,
      tipoeCF: req.tipoeCF,
      emisor: this.emisor(),
      buyer: req.buyer,
      lines: req.lines,
      payment: req.payment,
      ...this.context(),
    });
    return issued.sale;
  }

  /** An E34 crediting `lines` of `original`, never beyond what is still open on it (issueReceipt checks). */
  async creditNote(original: Sale, lines: CartLine[]): Promise<Sale> {
    const shift = await currentShift(this.db);
    if (!shift) throw new SaleProblem("Abra un turno para hacer una devolución (pestaña Turno).");
    const doc = original.document as CreditedDocument;
    const issued = await issueReceipt(this.db, {
      tipoeCF: "34",
      shiftId: shift.id,
      emisor: this.emisor(),
      buyer: { rnc: doc.Encabezado.Comprador?.RNCComprador, name: doc.Encabezado.Comprador?.RazonSocialComprador },
      lines,
      reference: {
        encf: original.encf!,
        fechaEmision: doc.Encabezado.Emisor.FechaEmision,
        montoTotal: original.montoTotal!,
      },
      ...this.context(),
    });
    return issued.sale;
  }

  private emisor() {
    const company = this.session.company;
    return {
      rnc: company.registryNumber,
      legalName: company.name,
      tradeName: company.tradeName,
      address: company.address,
    };
  }

  private context() {
    return {
      environment: this.session.company.dgiiServer,
      online: navigator.onLine,
      deviceId: this.session.deviceId,
    };
  }
}
