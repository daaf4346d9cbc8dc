// Over HTTP, on a private stack (wrangler dev + the DGII sandbox): issuer A issues an E31 to issuer
// B, both on this platform. After DGII accepts it, A's receipt is delivered to B's reception
// service (found in DGII's directory), B acknowledges it with a signed ARECF that xmlsec1 verifies
// against B's certificate, and B lists the purchase.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArecf } from "@ecf/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, forgeP12, xmlsecVerify, type TestIdentity } from "@ecf/shared/test-support/certs";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { setUpIssuer } from "../../scripts/certify-lib/issuer.ts";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";

let stack: LocalStack;
const identities: Record<"a" | "b", TestIdentity> = {} as never;
const issuers: Record<"a" | "b", { rnc: string; token: string }> = {} as never;

async function json<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.url} → ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  stack = await startLocalStack({ processingMs: 50, pollDelaysMs: "100,200,400,800", frozen: true });
  const rncs = { a: "131880681", b: "101010101" } as const;
  for (const side of ["a", "b"] as const) {
    identities[side] = await createTestIdentity({
      rnc: rncs[side],
      commonName: side === "a" ? "EMISORA A SRL" : "COMPRADORA B SRL",
    });
    const setup = await setUpIssuer(
      stack.workerUrl,
      stack.adminSecret,
      {
        rnc: rncs[side],
        legalName: side === "a" ? "Emisora A SRL" : "Compradora B SRL",
        address: "Calle El Conde 1",
        province: "010000",
        municipality: "010100",
        dgiiEnvironment: "testecf",
      },
      { p12: forgeP12(identities[side], "clave"), password: "clave" },
      [{ tipo: "31", rangeFrom: 1, rangeTo: 1000, expiresOn: "2030-12-31" }],
      { url: stack.sandboxUrl, certificatePem: identities[side].certificatePem },
    );
    const { token } = await json<{ token: string }>(
      await fetch(`${stack.workerUrl}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ apiKey: setup.apiKey, apiSecret: setup.apiSecret }),
      }),
    );
    issuers[side] = { rnc: rncs[side], token };
  }
  // DGII's directory lists B as an electronic receiver on this platform (its /{rnc} receiver paths).
  const receiver = `${stack.workerUrl}/${rncs.b}`;
  await json(
    await fetch(`${stack.sandboxUrl}/__sandbox/directory`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([
        { nombre: "Compradora B SRL", rnc: rncs.b, urlRecepcion: receiver, urlAceptacion: receiver, urlOpcional: null },
      ]),
    }),
  );
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

describe("delivery to a buyer on the same platform", () => {
  it("A's E31 reaches B: Recibido with B's ARECF (xmlsec1 verifies it), and B lists the purchase", async () => {
    const request = structuredClone(makeEcf("31")) as Record<string, any>;
    delete request.Encabezado.Emisor;
    delete request.Encabezado.IdDoc.eNCF;
    delete request.FechaHoraFirma; // signed now, inside both certificates' validity
    request.Encabezado.Comprador = { RNCComprador: issuers.b.rnc, RazonSocialComprador: "Compradora B SRL" };
    const auth = (side: "a" | "b") => ({ Authorization: `Bearer ${issuers[side].token}` });
    const issued = await json<{ encf: string; estado: string }>(
      await fetch(`${stack.workerUrl}/fe/recepcion/ecf`, {
        method: "POST",
        headers: { ...auth("a"), "Content-Type": "application/json" },
        body: JSON.stringify(request),
      }),
    );

    let state: { estado: string; buyerDelivery?: { state: string; arecfEstado: string | null } } = {
      estado: issued.estado,
    };
    for (
      let i = 0;
      i < 120 && !["Recibido", "No Recibido", "Fallido", "No Receptor"].includes(state.buyerDelivery?.state ?? "");
      i++
    ) {
      await new Promise((r) => setTimeout(r, 500));
      state = await json(await fetch(`${stack.workerUrl}/fe/recepcion/ecf/${issued.encf}`, { headers: auth("a") }));
    }
    expect(state.estado).toBe("Aceptado");
    // What B's receiver refused, if anything (a second copy would be refused as a duplicate, motivo 3).
    const refusedByB = await json<{ items: { code: string; detail: string }[] }>(
      await fetch(`${stack.workerUrl}/reports/errores`, { headers: auth("b") }),
    );
    expect(refusedByB.items).toEqual([]);
    expect(state.buyerDelivery, JSON.stringify(state)).toMatchObject({ state: "Recibido", arecfEstado: "0" });
    expect(state).not.toHaveProperty("entregaComprador");

    const arecf = await (
      await fetch(`${stack.workerUrl}/fe/recepcion/ecf/${issued.encf}/arecf`, { headers: auth("a") })
    ).text();
    const verified = xmlsecVerify(arecf, identities.b.certificatePem);
    expect(verified.ok, verified.output).toBe(true);
    expect(parseArecf(arecf)).toMatchObject({
      RNCEmisor: issuers.a.rnc,
      RNCComprador: issuers.b.rnc,
      eNCF: issued.encf,
      Estado: "0",
    });

    const compras = await json<{ items: { rncEmisor: string; encf: string; arecfEstado: string }[] }>(
      await fetch(`${stack.workerUrl}/reports/compras`, { headers: auth("b") }),
    );
    expect(compras.items).toEqual([
      expect.objectContaining({ rncEmisor: issuers.a.rnc, encf: issued.encf, arecfEstado: "0" }),
    ]);
  }, 120_000);

  it("a buyer the sandbox plays refusing the e-CF (motivo 4): No Recibido over HTTP, sent once", async () => {
    const buyer = `${stack.sandboxUrl}/testecf/emisorreceptor`;
    await json(
      await fetch(`${stack.sandboxUrl}/__sandbox/directory`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify([
          { nombre: "Otro", rnc: "131880738", urlRecepcion: buyer, urlAceptacion: buyer, urlOpcional: null },
        ]),
      }),
    );
    await json(
      await fetch(`${stack.sandboxUrl}/__sandbox/buyer`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ estado: "1", motivo: "4" }),
      }),
    );
    const request = structuredClone(makeEcf("31")) as Record<string, any>;
    delete request.Encabezado.Emisor;
    delete request.Encabezado.IdDoc.eNCF;
    delete request.FechaHoraFirma;
    const auth = { Authorization: `Bearer ${issuers.a.token}` };
    const issued = await json<{ encf: string }>(
      await fetch(`${stack.workerUrl}/fe/recepcion/ecf`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify(request),
      }),
    );
    let state: { buyerDelivery?: { state: string; codigoMotivoNoRecibido: string | null } } = {};
    for (
      let i = 0;
      i < 120 && !["No Recibido", "Recibido", "Fallido"].includes(state.buyerDelivery?.state ?? "");
      i++
    ) {
      await new Promise((r) => setTimeout(r, 500));
      state = await json(await fetch(`${stack.workerUrl}/fe/recepcion/ecf/${issued.encf}`, { headers: auth }));
    }
    expect(state.buyerDelivery).toMatchObject({ state: "No Recibido", codigoMotivoNoRecibido: "4" });
    const seen = await json<{ kind: string }[]>(
      await fetch(`${stack.sandboxUrl}/__sandbox/received?rnc=${issuers.a.rnc}&encf=${issued.encf}`),
    );
    expect(seen.filter((r) => r.kind === "receptor-ecf")).toHaveLength(1);
    await fetch(`${stack.sandboxUrl}/__sandbox/buyer`, { method: "DELETE" });
  }, 120_000);

  it("a buyer that is not an electronic receiver gets the printed copy by e-mail: both attachments, the PDF's QR is the timbre URL", async () => {
    const address = "compras@cliente-sin-recepcion.do";
    const request = structuredClone(makeEcf("31")) as Record<string, any>;
    delete request.Encabezado.Emisor;
    delete request.Encabezado.IdDoc.eNCF;
    delete request.FechaHoraFirma;
    request.Encabezado.Comprador = {
      RNCComprador: "130000010",
      RazonSocialComprador: "Cliente Sin Recepcion SRL",
      CorreoComprador: address,
    };
    const auth = { Authorization: `Bearer ${issuers.a.token}` };
    const issued = await json<{ encf: string; urlTimbre: string }>(
      await fetch(`${stack.workerUrl}/fe/recepcion/ecf`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify(request),
      }),
    );
    let mail:
      | { subject: string; attachments: { filename: string; contentType: string; contentBase64: string }[] }
      | undefined;
    for (let i = 0; i < 120 && !mail; i++) {
      await new Promise((r) => setTimeout(r, 500));
      mail = (
        await json<
          {
            to: string[];
            subject: string;
            attachments: { filename: string; contentType: string; contentBase64: string }[];
          }[]
        >(await fetch(`${stack.sandboxUrl}/__mail`))
      ).find((m) => m.to.includes(address));
    }
    expect(mail, "no e-mail reached the SMTP sink").toBeDefined();
    expect(mail!.subject).toContain(issued.encf);
    expect(mail!.attachments.map((a) => a.contentType)).toEqual(["application/pdf", "application/xml"]);
    const dir = mkdtempSync(join(tmpdir(), "ecf-mail-"));
    try {
      writeFileSync(join(dir, "ri.pdf"), Buffer.from(mail!.attachments[0]!.contentBase64, "base64"));
      execFileSync("pdftoppm", ["-r", "200", "-png", "-singlefile", join(dir, "ri.pdf"), join(dir, "ri")]);
      const qr = execFileSync("zbarimg", ["--raw", "-q", join(dir, "ri.png")])
        .toString("utf8")
        .split("\n")
        .filter(Boolean);
      expect(qr).toContain(issued.urlTimbre);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
