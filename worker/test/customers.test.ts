// /customers in workerd with real D1 and the month objects: the buyers of the receipts issued are
// listed without being typed (DGII's directory asked about them in the background), a customer is added and edited by RNC (DGII's directory asked
// whether it receives e-CF), bad input is a problem at its path, and no company sees another's.
import { describe, expect, it } from "vitest";
import { authed, freshRnc } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issuer, issueRequest } from "./support/issuing.ts";

type Customer = { rnc: string; name: string; email: string | null; electronicReceiver: boolean | null };

const list = async (token: string, q = "") =>
  ((await (await call(`/customers${q}`, { headers: authed(token) })).json()) as { items: Customer[] }).items;
const put = (token: string, rnc: string, body: unknown) =>
  call(`/customers/${rnc}`, {
    method: "PUT",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });

describe("customers", () => {
  it("lists the buyer of an issued invoice, then keeps the owner's edit of it", async () => {
    const { token } = await issuer();
    const request = issueRequest("31");
    const issued = await issue(token, request);
    expect(issued.status, JSON.stringify(issued.body)).toBeLessThan(300);
    const buyer = request.Encabezado.Comprador as { RNCComprador: string; RazonSocialComprador: string };
    const listed = await list(token);
    expect(listed).toContainEqual(
      expect.objectContaining({ rnc: buyer.RNCComprador, name: buyer.RazonSocialComprador, electronicReceiver: null }),
    );
    const edited = await put(token, buyer.RNCComprador, { name: "Cliente Editado SRL", email: "pagos@cliente.do" });
    expect(edited.status).toBe(200);
    const again = await list(token, "?q=editado");
    expect(again).toEqual([
      expect.objectContaining({ rnc: buyer.RNCComprador, name: "Cliente Editado SRL", email: "pagos@cliente.do" }),
    ]);
    // Reading the list again takes the receipt's buyer in only once and keeps the edit.
    expect((await list(token)).filter((c) => c.rnc === buyer.RNCComprador)).toHaveLength(1);
  });

  it("asks DGII's directory in the background about a buyer taken in from a receipt", async () => {
    const { token } = await issuer();
    const request = issueRequest("31");
    const issued = await issue(token, request);
    expect(issued.status, JSON.stringify(issued.body)).toBeLessThan(300);
    const rnc = (request.Encabezado.Comprador as { RNCComprador: string }).RNCComprador;
    const receiverOf = async () => (await list(token)).find((c) => c.rnc === rnc)?.electronicReceiver;
    // Taken in unasked; once the list has been read, the directory's answer (not listed) is recorded.
    await expect.poll(receiverOf, { timeout: 10_000 }).toBe(false);
  });

  it("adds a customer by hand: DGII's directory says it receives no e-CF; another company does not see it", async () => {
    const { token } = await issuer();
    const other = await issuer();
    const rnc = freshRnc();
    const res = await put(token, rnc, { name: "Ferretería Nueva SRL" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      rnc,
      name: "Ferretería Nueva SRL",
      email: null,
      electronicReceiver: false,
    });
    expect((await list(token)).map((c) => c.rnc)).toContain(rnc);
    expect((await list(other.token)).map((c) => c.rnc)).not.toContain(rnc);
  });

  it("refuses a bad RNC and an empty name with a problem at each path", async () => {
    const { token } = await issuer();
    const bad = await put(token, "12345", { name: "X" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    expect(((await bad.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/rnc");
    const empty = await put(token, freshRnc(), { name: "", email: "no-es-correo" });
    expect(empty.status).toBe(400);
    const paths = ((await empty.json()) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["/name", "/email"]));
  });
});
