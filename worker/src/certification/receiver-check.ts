// The receiver self-test: the issuer's registered receiver URLs called the way DGII calls them in
// steps 6 to 10 (descripcion-tecnica, "Servicios que debe exponer el receptor"): a seed from
// autenticación, traded signed for a token at validación de certificado, an e-CF to recepción
// answered with a signed ARECF, an ACECF to aprobación comercial, and DGII's capitalised paths.
// The test documents are deliberately incomplete, so the receiver acknowledges them as not
// received and records nothing. Signed with the issuer's own certificate: the only one it holds.
import { buildAcecf, formatDgiiDate, formatDgiiDateTime, signXml, verifyXml } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { type CompanySigner, signerFor } from "../dgii/for-company.ts";
import { xmlForm } from "../dgii/seed-auth.ts";
import { outboundFetch } from "../outbound/fetch.ts";
import { outboundPolicy } from "../outbound/url-policy.ts";
import type { ReceiverUrls } from "./run.ts";

export type ReceiverCheckId =
  | "semilla"
  | "validacion-certificado"
  | "recepcion"
  | "aprobacion-comercial"
  | "mayusculas";

export interface ReceiverCheck {
  id: ReceiverCheckId;
  ok: boolean;
  /** The URL called, as DGII will call it. */
  url: string;
  status: number;
  /** What answered, or what went wrong. */
  detail: string;
  /** What a public deployment must expose for this check to pass against DGII. */
  requirement: { es: string; en: string };
}

const REQUIREMENTS: Record<ReceiverCheckId, { es: string; en: string }> = {
  semilla: {
    es: "GET {autenticación}/api/semilla debe responder desde Internet, por https, con la semilla en XML.",
    en: "GET {autenticación}/api/semilla must answer from the Internet, over https, with the seed as XML.",
  },
  "validacion-certificado": {
    es: "POST {autenticación}/api/validacioncertificado debe aceptar la semilla firmada (campo xml) y devolver un token.",
    en: "POST {autenticación}/api/validacioncertificado must take the signed seed (field xml) and answer a token.",
  },
  recepcion: {
    es: "POST {recepción} debe aceptar un e-CF (campo xml, con el token) y responder el acuse de recibo (ARECF) firmado.",
    en: "POST {recepción} must take an e-CF (field xml, with the token) and answer the signed acknowledgement (ARECF).",
  },
  "aprobacion-comercial": {
    es: "POST {aprobación comercial} debe aceptar una aprobación comercial (ACECF, campo xml, con el token) y responder.",
    en: "POST {aprobación comercial} must take a commercial approval (ACECF, field xml, with the token) and answer.",
  },
  mayusculas: {
    es: "Las rutas deben responder sin distinguir mayúsculas: DGII llama, por ejemplo, /fe/Autenticacion/api/Semilla.",
    en: "The paths must answer whatever their case: DGII calls, for example, /fe/Autenticacion/api/Semilla.",
  },
};

/** A test e-NCF no sequence reaches: the receiver refuses it, never records it. */
const TEST_ENCF = "E310000000000";
const ANSWER_BYTES = 256 * 1024;

/** Every check, in DGII's order; a failed authentication leaves the rest to try without a token. */
export async function checkReceiver(env: Env, company: Company, urls: ReceiverUrls): Promise<ReceiverCheck[]> {
  const signer = await signerFor(env, company);
  const call = (url: string, init: RequestInit = {}) =>
    outboundFetch(outboundPolicy(env), url, init, { timeoutMs: 10_000, maxBytes: ANSWER_BYTES, overflow: "fail" });
  const auth = urls.autenticacion.replace(/\/+$/, "");
  const checks: ReceiverCheck[] = [];
  const record = async (
    id: ReceiverCheckId,
    url: string,
    attempt: () => Promise<Omit<ReceiverCheck, "id" | "url" | "requirement">>,
  ) => {
    const result = await attempt().catch((error: unknown) => ({
      ok: false,
      status: 0,
      detail: `Unreachable: ${error instanceof Error ? error.message : String(error)}`,
    }));
    checks.push({ id, url, ...result, requirement: REQUIREMENTS[id] });
    return result;
  };
  let seed = "";
  await record("semilla", `${auth}/api/semilla`, async () => {
    const response = await call(`${auth}/api/semilla`);
    seed = await response.text();
    const ok = response.ok && seed.includes("<SemillaModel");
    return { ok, status: response.status, detail: ok ? "Semilla recibida" : `No seed: ${seed.slice(0, 200)}` };
  });
  let token: string | undefined;
  await record("validacion-certificado", `${auth}/api/validacioncertificado`, async () => {
    if (!seed.includes("<SemillaModel")) return { ok: false, status: 0, detail: "No seed to sign" };
    const form = xmlForm(await signXml(seed, signer.key, signer.certificateDer), "semilla.xml");
    const response = await call(`${auth}/api/validacioncertificado`, {
      method: "POST",
      body: form,
      headers: { Accept: "application/json" },
    });
    const text = await response.text();
    token = /"token"\s*:\s*"([^"]+)"/.exec(text)?.[1];
    return {
      ok: response.ok && !!token,
      status: response.status,
      detail: token ? "Token recibido" : `No token: ${text.slice(0, 200)}`,
    };
  });
  const bearer: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await record("recepcion", urls.recepcion, () => postEcf(call, urls.recepcion, company, signer, bearer));
  await record("aprobacion-comercial", urls.aprobacionComercial, () =>
    postAcecf(call, urls.aprobacionComercial, company, signer, bearer),
  );
  const capitalised = `${auth.replace(/autenticacion$/i, "Autenticacion")}/api/Semilla`;
  await record("mayusculas", capitalised, async () => {
    const response = await call(capitalised);
    const ok = response.ok && (await response.text()).includes("<SemillaModel");
    return { ok, status: response.status, detail: ok ? "Responde con mayúsculas" : `HTTP ${response.status}` };
  });
  return checks;
}

type Call = (url: string, init?: RequestInit) => Promise<Response>;

/** An e-CF to the issuer that names only what the acknowledgement needs: answered "No recibido", signed. */
async function postEcf(
  call: Call,
  url: string,
  company: Company,
  signer: CompanySigner,
  bearer: Record<string, string>,
) {
  const ecf =
    `<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>${TEST_ENCF}</eNCF></IdDoc>` +
    `<Emisor><RNCEmisor>${company.rnc}</RNCEmisor></Emisor><Comprador><RNCComprador>${company.rnc}</RNCComprador></Comprador>` +
    `</Encabezado><FechaHoraFirma>${formatDgiiDateTime(new Date())}</FechaHoraFirma></ECF>`;
  const signed = await signXml(ecf, signer.key, signer.certificateDer);
  const response = await call(url, {
    method: "POST",
    body: xmlForm(signed, `${company.rnc}${TEST_ENCF}.xml`),
    headers: bearer,
  });
  const answer = await response.text();
  if (!response.ok || !answer.includes("<ARECF"))
    return { ok: false, status: response.status, detail: `No ARECF: ${answer.slice(0, 200)}` };
  const verified = await verifyXml(answer);
  return verified.ok
    ? { ok: true, status: response.status, detail: "ARECF firmado recibido" }
    : { ok: false, status: response.status, detail: `ARECF with a bad signature: ${verified.message}` };
}

/** An ACECF for the test e-NCF: the receiver reads it and answers that it issued no such e-NCF. */
async function postAcecf(
  call: Call,
  url: string,
  company: Company,
  signer: CompanySigner,
  bearer: Record<string, string>,
) {
  const now = new Date();
  const acecf = buildAcecf({
    RNCEmisor: company.rnc,
    eNCF: TEST_ENCF,
    FechaEmision: formatDgiiDate(now),
    MontoTotal: "1.00",
    RNCComprador: company.rnc,
    Estado: "1",
    FechaHoraAprobacionComercial: formatDgiiDateTime(now),
  });
  const signed = await signXml(acecf, signer.key, signer.certificateDer);
  const response = await call(url, {
    method: "POST",
    body: xmlForm(signed, `${company.rnc}${TEST_ENCF}.xml`),
    headers: bearer,
  });
  const text = await response.text();
  const codes = [...text.matchAll(/"code"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
  // unknown_encf: the receiver took the ACECF, checked its signature and looked the e-NCF up.
  return {
    ok: response.ok || codes.includes("unknown_encf"),
    status: response.status,
    detail: response.ok ? "Aprobación comercial recibida" : `Answered ${text.slice(0, 300)}`,
  };
}
