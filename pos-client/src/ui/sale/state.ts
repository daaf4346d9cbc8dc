// What the sale screen holds while the cashier builds a sale (sale/cart-store.ts keeps it across
// reloads), what the screen is told by the app, and the sale it hands back when the cashier charges.
import type { FindTaxpayer } from "../../sale/buyers.ts";
import type { CartLine, Payment, PaymentMethod } from "../../sale/document.ts";

export interface SaleRequest {
  tipoeCF: "31" | "32";
  lines: CartLine[];
  buyer?: { rnc?: string; name?: string };
  payment: Payment;
}

export interface SaleScreenState {
  lines: CartLine[];
  rnc: string;
  buyerName: string;
  method: PaymentMethod;
  cash: string;
  card: string;
  transfer: string;
}

export const emptySale = (): SaleScreenState => ({
  lines: [],
  rnc: "",
  buyerName: "",
  method: "efectivo",
  cash: "",
  card: "",
  transfer: "",
});

export interface SaleScreenOptions {
  /** DGII's registry, asked when the till is online; without it only recent buyers fill the name. */
  findTaxpayer?: FindTaxpayer;
  /** The largest quantity a line may carry (the business's setting; 9,999 by default). */
  maxQuantity?: string;
  /** Told after every change to the cart, the buyer or the payment (the app keeps it across reloads). */
  changed?: (state: SaleScreenState) => void;
}

/** A buyer's RNC makes the sale an E31 (crédito fiscal); without one it is an E32 (consumo). */
export const tipoOf = (state: SaleScreenState): "31" | "32" => (state.rnc ? "31" : "32");
