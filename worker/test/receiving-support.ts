// Shared by the receiving tests: companies that can sign, suppliers' signed e-CF, multipart posts.
import { ecfToXml, formatDgiiDateTime, fromBase64, readPkcs12, signEcfXml, signXml } from "@ecf/shared";
import { inject } from "vitest";
import { makeEcf, type EcfFactoryOptions } from "@ecf/shared/test-support/ecf-factories";
import type { TipoeCF } from "@ecf/shared";
import { authed, companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { registerSigner } from "./support/issuing.ts";

const fixtures = inject("certificates");

/** A company (receiver) with its signing certificate uploaded, and a logged-in token. */
export async function receivingCompany() {
  const account = await companyWithToken();
  const form = new FormData();
  form.set(
    "file",
    new File([new Uint8Array(fromBase64(fixtures.forgeP12)!)], "firma.p12", { type: "application/x-pkcs12" }),
  );
  form.set("password", fixtures.password);
  const res = await call("/company/certificate", { method: "PUT", headers: authed(account.token), body: form });
  if (res.status !== 200) throw new Error(`certificate upload failed: ${res.status} ${await res.text()}`);
  await registerSigner(account.company.rnc);
  return account;
}

let supplierKey: Promise<CryptoKey> | undefined;
/** The supplier's signing key and certificate (the test identity). */
export async function supplierSigner() {
  supplierKey ??= crypto.subtle.importKey(
    "pkcs8",
    new Uint8Array(fromBase64(fixtures.pkcs8)!),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return { key: await supplierKey, der: fromBase64(fixtures.certificateDer)! };
}

let sequence = 1000;
/** A supplier's complete e-CF of `tipo`, addressed to `buyerRnc`, unsigned (canonical XML). */
export function supplierEcf(
  tipo: TipoeCF,
  buyerRnc: string | undefined,
  options: EcfFactoryOptions & { rncEmisor?: string } = {},
) {
  // Signed now: the test certificates are valid from 2026 on, the factory's default date is 2025.
  const doc = makeEcf(tipo, { sequence: ++sequence, fechaHoraFirma: formatDgiiDateTime(new Date()), ...options }) as {
    Encabezado: Record<string, Record<string, unknown>>;
  };
  if (buyerRnc !== undefined && doc.Encabezado.Comprador) doc.Encabezado.Comprador.RNCComprador = buyerRnc;
  if (options.rncEmisor) doc.Encabezado.Emisor!.RNCEmisor = options.rncEmisor;
  const idDoc = doc.Encabezado.IdDoc!;
  return { doc, xml: ecfToXml(doc), encf: idDoc.eNCF as string, rncEmisor: doc.Encabezado.Emisor!.RNCEmisor as string };
}

export async function signAsSupplier(xml: string): Promise<string> {
  const { key, der } = await supplierSigner();
  return signEcfXml(xml, key, der);
}

/** Signs XML we did not build canonically (a DGII-style seed). */
export async function signOtherXml(xml: string): Promise<string> {
  const { key, der } = await supplierSigner();
  return signXml(xml, key, der);
}

export function xmlForm(xml: string | Uint8Array, fileName = "documento.xml"): FormData {
  const form = new FormData();
  form.set("xml", new File([typeof xml === "string" ? xml : new Uint8Array(xml)], fileName, { type: "text/xml" }));
  return form;
}

export function postXml(
  path: string,
  xml: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(path, { method: "POST", headers, body: xmlForm(xml) });
}

/** Signs with the expired test certificate (valid 2020-2021). */
export async function signWithExpiredCertificate(xml: string): Promise<string> {
  const p12 = readPkcs12(fromBase64(fixtures.expiredP12)!, fixtures.password);
  const key = await crypto.subtle.importKey("pkcs8", p12.pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return signEcfXml(xml, key, p12.certificate);
}

/**
 * Signs with a certificate an intermediate CA issued; `withIntermediate` adds that CA's certificate
 * to KeyInfo after the signer's (KeyInfo is outside what the signature covers).
 */
export async function signWithChainedCertificate(xml: string, withIntermediate: boolean): Promise<string> {
  const key = await crypto.subtle.importKey(
    "pkcs8",
    new Uint8Array(fromBase64(fixtures.chainedPkcs8)!),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = await signEcfXml(xml, key, fromBase64(fixtures.chainedCertificateDer)!);
  if (!withIntermediate) return signed;
  const extra = `<X509Certificate>${fixtures.intermediateCertificateDer}</X509Certificate></X509Data>`;
  return signed.replace(/<\/X509Data>(?=<\/KeyInfo>)/, extra);
}

/** Signs with a throw-away self-signed certificate (no accredited issuer), as a forger would. */
export async function signWithSelfSignedCertificate(
  xml: string,
  form: "canonical" | "other" = "canonical",
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "pkcs8",
    new Uint8Array(fromBase64(fixtures.selfSignedPkcs8)!),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const der = fromBase64(fixtures.selfSignedCertificateDer)!;
  return form === "canonical" ? signEcfXml(xml, key, der) : signXml(xml, key, der);
}
