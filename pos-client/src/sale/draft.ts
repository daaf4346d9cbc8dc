// The sale being built: what the sale screen holds while the cashier rings it up (cart-store.ts
// keeps it across reloads) and the sale it hands back when the cashier charges.
import type { CartLine, Payment, PaymentMethod } from "./document.ts";

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

/** A buyer's RNC makes the sale an E31 (crédito fiscal); without one it is an E32 (consumo). */
export const tipoOf = (state: SaleScreenState): "31" | "32" => (state.rnc ? "31" : "32");
