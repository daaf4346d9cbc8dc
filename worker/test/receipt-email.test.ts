// The printed copy by e-mail: sent over SMTP (TCP sockets from workerd) to the sandbox's SMTP sink,
// which parses it with mailparser; a buyer that is not an electronic receiver gets it on its own.
import { afterEach, describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, sandboxUrl } from "./support/issuing.ts";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { receiptMonth } from "../src/ledger/client.ts";
import type { ReceiptMonth } from "../src/objects/receipt-month.ts";
import { monthSql, runTaskAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

interface Mail {
  to: string[];
  subject: string;
  text: string;
  attachments: { filename: string; contentType: string; size: number; contentBase64: string }[];
}
const mailTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as Mail[]).filter((m) => m.to.includes(address));
const stateOf = async (token: string, encf: string) =>
  (await (await call(`/fe/recepcion/ecf/${encf}`, { headers: authed(token) })).json()) as {
    urlTimbre: string;
    buyerDelivery?: { state: string };
    emails?: { to: string; at: string; state: string; detail: string | null }[];
  };

async function untilMail(companyId: string, address: string, count: number): Promise<Mail[]> {
  await until(
    async () => (await mailTo(address)).length >= count,
    () => runTaskAlarms(companyId),
  );
  return mailTo(address);
}

afterEach(clearFaults);

describe("the printed copy by e-mail", () => {
  it("a buyer that is not an electronic receiver gets the PDF and the signed XML at its CorreoComprador", async () => {
    const { company, token } = await issuer();
    const address = `compras-${company.rnc}@cliente.com.do`;
    const { status, body } = await issue(
      token,
      issueRequest("31", {}, (doc) => (doc.Encabezado.Comprador.CorreoComprador = address)),
    );
    expect(status).toBe(200);
    const [mail] = await untilMail(company.id, address, 1);
    expect(mail, "no e-mail arrived").toBeDefined();
    expect(mail!.subject).toContain(body.encf);
    expect(mail!.text).toContain(body.urlTimbre);
    expect(mail!.text).toContain(company.rnc);
    // The receipt's public page, with its security code: the buyer can come back to it.
    const code = new URL(body.urlTimbre).searchParams.get("CodigoSeguridad")!;
    expect(mail!.text).toContain(`/r/${company.rnc}/${body.encf}?c=${encodeURIComponent(code)}`);
    expect(mail!.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`${company.rnc}${body.encf}.pdf`, "application/pdf"],
      [`${company.rnc}${body.encf}.xml`, "application/xml"],
    ]);
    expect(atob(mail!.attachments[0]!.contentBase64).startsWith("%PDF-")).toBe(true);
    const xml = new TextDecoder().decode(
      Uint8Array.from(atob(mail!.attachments[1]!.contentBase64), (ch) => ch.charCodeAt(0)),
    );
    expect(xml).toBe(await (await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(token) })).text());
    const state = await stateOf(token, body.encf);
    expect(state.buyerDelivery?.state).toBe("No Receptor");
    expect(state.emails).toEqual([expect.objectContaining({ to: address, state: "sent" })]);
    // One name per fact: 1.8.0's entregaComprador and correos are gone.
    expect(state).not.toHaveProperty("entregaComprador");
    expect(state).not.toHaveProperty("correos");
  });

  it("POST /fe/recepcion/ecf/{encf}/email sends it to any address; a bad address is a 400, an unknown receipt a 404", async () => {
    const { company, token } = await issuer();
    const { body } = await issue(token, issueRequest("32"));
    const address = `contabilidad-${company.rnc}@cliente.com.do`;
    const post = (encf: string, to: string) =>
      call(`/fe/recepcion/ecf/${encf}/email`, {
        method: "POST",
        headers: { ...authed(token), "Content-Type": "application/json" },
        body: JSON.stringify({ to }),
      });
    const queued = await post(body.encf, address);
    expect(queued.status).toBe(202);
    expect(await queued.json()).toEqual({ encf: body.encf, to: address, state: "pending" });
    const [mail] = await untilMail(company.id, address, 1);
    expect(mail?.attachments.map((a) => a.contentType)).toEqual(["application/pdf", "application/xml"]);
    const sent = await stateOf(token, body.encf);
    expect(sent.emails).toEqual([expect.objectContaining({ to: address, state: "sent" })]);

    const bad = await post(body.encf, "not an address");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/to");
    expect((await post("E320000099999", address)).status).toBe(404);
  });

  it("two alarm runs at once send a due e-mail once: a run claims what it read before it awaits anything", async () => {
    const { company, token } = await issuer();
    const address = `dos-corridas-${company.rnc}@cliente.com.do`;
    const { body } = await issue(token, issueRequest("32"));
    const month = String(body.fechaEmision).slice(0, 7);
    const queued = await call(`/fe/recepcion/ecf/${body.encf}/email`, {
      method: "POST",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify({ to: address }),
    });
    expect(queued.status).toBeLessThan(300);
    await runInDurableObject(receiptMonth(env, company.id, month), async (instance, state) => {
      state.storage.sql.exec(
        "UPDATE tasks SET next_attempt_at = ?1 WHERE status = 'pending'",
        new Date(0).toISOString(),
      );
      await Promise.all([(instance as ReceiptMonth).alarm(), (instance as ReceiptMonth).alarm()]);
    });
    await until(
      async () => {
        const open = await monthSql(
          company.id,
          month,
          "SELECT id FROM tasks WHERE kind = 'email' AND status = 'pending'",
        );
        return open.length === 0;
      },
      () => runTaskAlarms(company.id),
    );
    expect(await mailTo(address)).toHaveLength(1);
  });
});
