import type { PinHash } from "@ecf/shared/pin-kdf";
import Dexie, { type EntityTable } from "dexie";
import { productWords } from "./search-words.ts";

/** DGII's word for a receipt's state, plus the device's own states before the server answered. */
export type Estado =
  | "Aceptado"
  | "Aceptado Condicional"
  | "En Proceso"
  | "Rechazado"
  | "Contingencia"
  | "Anulado"
  | "Pendiente";

/** A sale as the cashier rang it up; `encf` is set once the receipt is numbered. */
export interface Sale {
  id: string;
  createdAt: string;
  encf?: string;
  /** The e-CF JSON document (shared package shape), as signed. */
  document: unknown;
  /** Where the receipt stands: "Pendiente"/"Contingencia" until the server answered. */
  estado?: Estado;
  /** DGII's (or the server's) reasons, for a rejection. */
  mensajes?: { codigo: string | null; valor: string }[];
  securityCode?: string;
  fechaHoraFirma?: string;
  timbreUrl?: string;
  montoTotal?: string;
  payment?: unknown;
  /** For an E34: the e-NCF it credits. */
  modifies?: string;
  /** The shift (cuadre de caja) it was rung up in. */
  shiftId?: string;
}

/**
 * One receipt waiting to reach the worker, in the order it was signed. States:
 * pending → sending → sent | rejected; a `sending` entry found at start-up (tab closed or network
 * lost mid-request) goes again: the server answers a repeat with its first answer.
 */
export interface OutboxEntry {
  seq?: number;
  saleId: string;
  encf: string;
  signedXml: string;
  /** The pairing (device id) that signed it: its token uploads it, even after a revocation. */
  deviceId?: string;
  state: "pending" | "sending" | "sent" | "rejected";
  attempts?: number;
  lastError?: string;
  answer?: unknown;
}

/** A block of e-NCF numbers leased from the server; `next` only moves forward. */
export interface LocalLease {
  id?: number;
  tipoeCF: string;
  rangeFrom: number;
  rangeTo: number;
  next: number;
  /** FechaVencimientoSecuencia, yyyy-MM-dd. */
  expiresOn: string;
}

/** "0": taxed at 0 % (IndicadorFacturacion 3); "E": exempt (IndicadorFacturacion 4). */
export type ItbisRate = "18" | "16" | "0" | "E";

export interface Product {
  code: string;
  name: string;
  /** Unit price; ITBIS comes on top unless `priceIncludesItbis` (the shelf price, as stores mark it). */
  price: string;
  itbis: ItbisRate;
  /** UnidadMedida code from the DGII catalog. */
  unit: string;
  /** 1 = good, 2 = service. */
  kind: "1" | "2";
  priceIncludesItbis?: boolean;
  /** The server's product id and version, for a product that came with the issuer's catalogue. */
  id?: string;
  version?: number;
  /** Codes a scanner reads (EAN, UPC…), looked up like the product code. */
  barcodes?: string[];
  /** The search words of the name and code (search-words.ts); the products table's hooks keep them. */
  words?: string[];
  /** The price was changed on this till (allowed per device); the next server change of the product replaces it. */
  priceEditedHere?: boolean;
}

/** A cashier of the issuer, as the catalogue ships it: the PIN only as a PBKDF2 hash, checked offline. */
export interface Cashier {
  id: string;
  name: string;
  active: boolean;
  version: number;
  /** scrypt, or PBKDF2-SHA256 for a PIN set before scrypt (@ecf/shared/pin-kdf). */
  pin: PinHash;
}

/** A buyer the till has used or looked up, so typing its RNC offline still fills the name. */
export interface Buyer {
  rnc: string;
  name: string;
  /** DGII's status word ("ACTIVO", "SUSPENDIDO"…) when the registry said it. */
  status?: string;
  active?: boolean;
  /** ISO time it was last used or looked up: the oldest go first when the list is trimmed. */
  usedAt: string;
}

/** The non-extractable signing key (the CryptoKey object itself) and its certificate. */
export interface SigningKeyRecord {
  id: "signing";
  key: CryptoKey;
  certificate: Uint8Array;
  certificateSerial: string | null;
}

/** How a Z report splits the takings. */
export type ShiftPaymentMethod = "efectivo" | "tarjeta" | "transferencia";

/**
 * The Z report stored with a closed shift (shift/z-report.ts computes it), as PUT
 * /devices/shifts/{id} takes it (worker/src/http/schemas/shifts.ts): amounts with 2 decimals.
 */
export interface ZReport {
  receipts: { tipoeCF: string; count: number; total: string }[];
  payments: { method: ShiftPaymentMethod; count: number; total: string }[];
  salesCount: number;
  salesTotal: string;
  itbisTotal: string;
  refunds: { count: number; total: string; itbis: string };
  cashSales: string;
  cashRefunds: string;
  expectedCash: string;
  countedCash: string;
  difference: string;
}

/**
 * A cashier's shift on this till (cuadre de caja): opened with a float, closed with the counted
 * cash and the Z report, handed to the server with PUT /devices/shifts/{id} until it answers.
 */
export interface Shift {
  id: string;
  cashierId: string;
  cashierName: string;
  openedAt: string;
  openingFloat: string;
  state: "open" | "closed";
  closedAt?: string;
  countedCash?: string;
  report?: ZReport;
  /** The pairing it was opened under: its token hands it over. */
  deviceId?: string;
  /** "pending" until the server has the current state; "refused" when it answered 4xx (kept, shown). */
  sync: "pending" | "sent" | "refused";
  /** Goes up on every change, so the answer to an older upload never marks a newer state as sent. */
  revision: number;
  lastError?: string;
}

export interface Setting {
  key: string;
  value: unknown;
}

export class PosDatabase extends Dexie {
  sales!: EntityTable<Sale, "id">;
  outbox!: EntityTable<OutboxEntry, "seq">;
  leases!: EntityTable<LocalLease, "id">;
  products!: EntityTable<Product, "code">;
  keys!: EntityTable<SigningKeyRecord, "id">;
  settings!: EntityTable<Setting, "key">;
  cashiers!: EntityTable<Cashier, "id">;
  buyers!: EntityTable<Buyer, "rnc">;
  shifts!: EntityTable<Shift, "id">;

  constructor(name = "ecf-pos") {
    super(name);
    this.version(1).stores({
      sales: "id, createdAt, encf",
      outbox: "++seq, saleId, &encf, state",
    });
    this.version(2).stores({
      sales: "id, createdAt, encf",
      outbox: "++seq, saleId, &encf, state",
      leases: "++id, [tipoeCF+rangeFrom]",
      products: "code, name",
      keys: "id",
      settings: "key",
    });
    // The issuer's catalogue: products stay keyed by code (unique per issuer, so hand-typed ones
    // of version 2 keep working), found also by server id and by any barcode.
    this.version(3).stores({
      products: "code, name, id, *barcodes",
      cashiers: "id",
      buyers: "rnc, usedAt",
    });
    // Shifts (cuadre de caja): every sale and refund carries the shift it was rung up in.
    this.version(4).stores({
      sales: "id, createdAt, encf, shiftId",
      shifts: "id, openedAt, state, sync",
    });
    // The sale screen's search (sale/product-search.ts) by the words of each product's name and
    // code, through an index instead of the whole catalogue in memory.
    this.version(5)
      .stores({ products: "code, name, id, *barcodes, *words" })
      .upgrade((tx) =>
        tx
          .table<Product>("products")
          .toCollection()
          .modify((p) => {
            p.words = productWords(p);
          }),
      );
    this.products.hook("creating", (_code, p) => {
      p.words = productWords(p);
    });
    // Always recomputed: a `put` that replaces a product (an edit on the till, a catalogue page)
    // comes here with `words: undefined` among the changes, since the new object has none.
    this.products.hook("updating", (changes, _code, p) => ({
      words: productWords({ ...p, ...(changes as Partial<Product>) }),
    }));
  }

  /**
   * Records a sale and its outbox entry in one IndexedDB transaction: either both are stored or
   * neither is, so a receipt can never be printed without being queued for sync.
   */
  async recordSignedSale(sale: Sale, entry: Omit<OutboxEntry, "seq" | "state">): Promise<number> {
    return this.transaction("rw", this.sales, this.outbox, this.settings, async () => {
      await this.sales.put(sale);
      const seq = (await this.outbox.add({ ...entry, state: "pending", attempts: 0 })) as number;
      // Its number is no longer in flight (see takeNumber).
      const taken = await this.setting<Record<string, string>>("taken-encf");
      if (taken && entry.encf in taken) {
        const { [entry.encf]: _, ...rest } = taken;
        await this.setSetting("taken-encf", rest);
      }
      return seq;
    });
  }

  async setting<T>(key: string): Promise<T | undefined> {
    return (await this.settings.get(key))?.value as T | undefined;
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    await this.settings.put({ key, value });
  }
}
