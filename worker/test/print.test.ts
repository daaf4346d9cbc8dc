import { env } from "cloudflare:workers";
import { ecfToXml, securityCode, timbreForSignedEcf, timbreUrl } from "@ecf/shared";
import { describe, expect, it } from "vitest";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { authed, companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { signAsSupplier } from "./receiving-support.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";
import { putReceipt, receiptRow, updateReceiptRow } from "./support/ledger.ts";

/** An issued receipt as the issuing path leaves it: the signed XML in R2 and its row in the ledger. */
async function issued(companyId: string, rnc: string, tipo: "31" | "32", source: "api" | "device", sequence: number) {
  const signed = await signAsSupplier(ecfToXml(makeEcf(tipo, { sequence })));
  const encf = /<eNCF>([^<]+)<\/eNCF>/.exec(signed)![1]!;
  const xmlKey = `${rnc}/2025/04/${encf}.xml`;
  await env.ARCHIVE.put(xmlKey, signed);
  await putReceipt({
    id: crypto.randomUUID(),
    companyId,
    encf,
    tipoeCF: tipo,
    issueDate: "2025-04-01",
    montoTotal: "1.00",
    securityCode: securityCode(signed),
    fechaHoraFirma: "01-04-2025 10:15:00",
    timbreUrl: timbreUrl(timbreForSignedEcf(signed, "testecf")),
    xmlKey,
    xmlSha256: "x",
    documentHash: "y",
    dgiiPath: "ecf",
    status: "accepted",
    source,
  });
  return { encf, xmlKey };
}

const latin1 = (bytes: ArrayBuffer) => new TextDecoder("latin1").decode(bytes);

describe("GET /fe/recepcion/ecf/{encf}/pdf", () => {
  it.each([
    ["an API invoice (A4 by default)", "31", "api", undefined, 595.28],
    ["a point-of-sale receipt (80 mm roll by default)", "32", "device", undefined, 226.77],
    ["an invoice asked on Letter", "31", "api", "letter", 612],
  ] as const)(
    "renders %s in workerd, stores it beside the XML and serves the stored copy after",
    async (_label, tipo, source, layout, width) => {
      const { company, token } = await companyWithToken();
      const { encf, xmlKey } = await issued(company.id, company.rnc, tipo, source, 7);
      const path = `/fe/recepcion/ecf/${encf}/pdf${layout ? `?layout=${layout}` : ""}`;
      const res = await call(path, { headers: authed(token) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      const first = await res.arrayBuffer();
      const text = latin1(first);
      expect(text.startsWith("%PDF-")).toBe(true);
      expect(text).toMatch(new RegExp(`/MediaBox \\[\\s*0 0 ${String(width).replace(".", "\\.")}`));

      const key = xmlKey.replace(/\.xml$/, layout ? `.${layout}.pdf` : ".pdf");
      const stored = await env.ARCHIVE.get(key);
      expect(stored && new Uint8Array(await stored.arrayBuffer())).toEqual(new Uint8Array(first));

      // Immutable: once stored, the archive copy is what is served, even if the row changes.
      await updateReceiptRow(company.id, encf, "security_code = 'ZZZZZZ'");
      const again = await call(path, { headers: authed(token) });
      expect(new Uint8Array(await again.arrayBuffer())).toEqual(new Uint8Array(first));
    },
  );

  it("is scoped to the caller's company and validates its input", async () => {
    const a = await companyWithToken();
    const b = await companyWithToken();
    const { encf } = await issued(a.company.id, a.company.rnc, "31", "api", 8);
    expect((await call(`/fe/recepcion/ecf/${encf}/pdf`, { headers: authed(b.token) })).status).toBe(404);
    expect((await call(`/fe/recepcion/ecf/${encf}/pdf`)).status).toBe(401);
    expect((await call(`/fe/recepcion/ecf/E310000099999/pdf`, { headers: authed(a.token) })).status).toBe(404);
    expect((await call(`/fe/recepcion/ecf/X31/pdf`, { headers: authed(a.token) })).status).toBe(400);
    expect((await call(`/fe/recepcion/ecf/${encf}/pdf?layout=a3`, { headers: authed(a.token) })).status).toBe(400);
  });
});

describe("an issued receipt's PDF", () => {
  it("is rendered on the first GET, not while issuing; archived immutably beside the XML, and that copy is served after", async () => {
    const { company, token } = await issuer();
    // No CorreoComprador: the e-mail to the buyer would render (and archive) the PDF in the background.
    const { status, body } = await issue(
      token,
      issueRequest("31", { lines: 2 }, (d) => delete d.Encabezado.Comprador.CorreoComprador),
    );
    expect([200, 202, 503]).toContain(status);
    const receipt = await receiptRow(company.id, body.encf);
    const key = receipt!.xmlKey.replace(/\.xml$/, ".pdf");
    // Issuing rendered nothing: the CPU a PDF costs is spent only when someone asks for it.
    expect(await env.ARCHIVE.get(key)).toBeNull();
    const first = await call(`/fe/recepcion/ecf/${body.encf}/pdf`, { headers: authed(token) });
    expect(first.status).toBe(200);
    const served = new Uint8Array(await first.arrayBuffer());
    const stored = await env.ARCHIVE.get(key);
    expect(stored, "the first GET archived the PDF").not.toBeNull();
    const bytes = new Uint8Array(await stored!.arrayBuffer());
    expect(bytes).toEqual(served);
    expect(latin1(bytes.buffer as ArrayBuffer).startsWith("%PDF-")).toBe(true);
    // The archive's immutable write records the content's SHA-256.
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    expect(stored!.customMetadata?.sha256).toBe([...digest].map((b) => b.toString(16).padStart(2, "0")).join(""));
    const again = await call(`/fe/recepcion/ecf/${body.encf}/pdf`, { headers: authed(token) });
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
  });

  it("a PDF already archived is never overwritten by a later render", async () => {
    const { company } = await companyWithToken();
    const { encf, xmlKey } = await issued(company.id, company.rnc, "31", "api", 9);
    const { storeReceiptPdf } = await import("../src/print/receipt-pdf.ts");
    const row = (await receiptRow(company.id, encf))!;
    const first = await storeReceiptPdf(env, row);
    // The row changes (as if re-rendered with other data): the archived first copy is what stays and is returned.
    const second = await storeReceiptPdf(env, { ...row, securityCode: "ZZZZZZ" });
    expect(second).toEqual(first);
    expect(new Uint8Array(await (await env.ARCHIVE.get(xmlKey.replace(/\.xml$/, ".pdf")))!.arrayBuffer())).toEqual(
      first,
    );
  });
});
