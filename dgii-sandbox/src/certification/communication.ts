// The communication tests, DGII's side: DGII sends its own e-CF to the receiver URL the taxpayer
// registered and expects a signed ARECF back; then it sends a commercial approval (ACECF) of one
// of the taxpayer's e-CF to its approvals URL. The taxpayer's approval of DGII's e-CF comes back
// through certecf's aprobacioncomercial (progress.ts).
import { buildAcecf, ecfToXml, formatDgiiDate, formatDgiiDateTime, parseArecf, signEcfXml } from "@ecf/shared";
// The sandbox plays a taxpayer here, so it issues the platform's own canonical test e-CF.
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import type { SandboxContext } from "../context.ts";
import { randomUUID } from "node:crypto";
import { readEcf } from "../documents.ts";
import { accepted } from "../outcome.ts";
import { authenticateAt, postXmlFile } from "../receiver-client.ts";
import { parseXml } from "../xml-read.ts";
import { SANDBOX_SIGNER_RNC } from "../signer.ts";
import type { Postulacion, ReceiverUrls } from "./postulacion.ts";

export type CommunicationResult =
  | { ok: true; detalle: string; ecfEnviado?: NonNullable<Postulacion["ecfEnviado"]> }
  | { ok: false; detalle: string };

async function tokenFor(ctx: SandboxContext, urls: ReceiverUrls): Promise<string | CommunicationResult> {
  const login = await authenticateAt(ctx, urls.autenticacion);
  if (login.token) return login.token;
  return {
    ok: false,
    detalle: `La autenticación en ${urls.autenticacion} falló (HTTP ${login.status}): ${login.error}`,
  };
}

/** DGII's e-CF (an E31 to the taxpayer as buyer), signed with the sandbox's certificate. */
async function dgiiEcf(ctx: SandboxContext, p: Postulacion) {
  const now = ctx.now();
  const sequence = 1 + (now.getTime() % 9_000_000_000);
  const doc = makeEcf("31", { sequence, fechaEmision: formatDgiiDate(now), fechaHoraFirma: formatDgiiDateTime(now) });
  const encabezado = doc.Encabezado as Record<string, Record<string, unknown>>;
  encabezado.IdDoc!.FechaVencimientoSecuencia = `31-12-${now.getUTCFullYear() + 1}`;
  Object.assign(encabezado.Emisor!, { RNCEmisor: SANDBOX_SIGNER_RNC, RazonSocialEmisor: "DGII CERTIFICACION" });
  Object.assign(encabezado.Comprador!, { RNCComprador: p.rnc, RazonSocialComprador: p.razonSocial });
  const signer = await ctx.signer();
  const xml = await signEcfXml(ecfToXml(doc), signer.key, signer.certificateDer);
  // DGII knows its own e-CF: a receiver that confirms it (consultaestado) finds it Aceptado.
  const receivedAt = ctx.now();
  const trackId = randomUUID();
  const reception = {
    trackId,
    env: "certecf" as const,
    fileName: `${SANDBOX_SIGNER_RNC}.xml`,
    summary: readEcf(parseXml(xml)),
    receivedAt,
    readyAt: receivedAt.getTime(),
  };
  ctx.state.record({ t: "reception", reception, xml }, { t: "outcome", trackId, outcome: accepted() });
  const idDoc = encabezado.IdDoc!;
  const montoTotal = (encabezado.Totales as Record<string, string>).MontoTotal!;
  return { xml, encf: idDoc.eNCF as string, fechaEmision: formatDgiiDate(now), montoTotal };
}

/** Sends DGII's e-CF to the registered recepción URL; passes only with a valid, signed ARECF of Estado 0. */
export async function sendEcfToReceiver(ctx: SandboxContext, p: Postulacion): Promise<CommunicationResult> {
  const token = await tokenFor(ctx, p.urlsPrueba);
  if (typeof token !== "string") return token;
  const ecf = await dgiiEcf(ctx, p);
  let response: Response;
  try {
    response = await postXmlFile(
      p.urlsPrueba.recepcion,
      ecf.xml,
      `${SANDBOX_SIGNER_RNC}${ecf.encf}.xml`,
      "application/xml",
      token,
    );
  } catch (error) {
    return { ok: false, detalle: `No se pudo conectar con ${p.urlsPrueba.recepcion}: ${String(error)}` };
  }
  const body = await response.text();
  if (response.status !== 200)
    return { ok: false, detalle: `La recepción respondió HTTP ${response.status}: ${body.slice(0, 300)}` };
  const schema = await ctx.checks.validateSchema(body, "ARECF");
  if (!schema.ok)
    return { ok: false, detalle: `El acuse de recibo (ARECF) no cumple el XSD: ${schema.errors.join("; ")}` };
  const signature = await ctx.checks.verifySignature(body);
  if (!signature.ok) return { ok: false, detalle: `La firma del acuse de recibo no es válida: ${signature.message}` };
  const arecf = parseArecf(body);
  if (arecf.eNCF !== ecf.encf || arecf.RNCComprador !== p.rnc || arecf.Estado !== "0")
    return { ok: false, detalle: `El acuse de recibo no confirma ${ecf.encf} para ${p.rnc}: Estado ${arecf.Estado}` };
  const { xml: _, ...ecfEnviado } = ecf;
  return {
    ok: true,
    detalle: `e-CF ${ecf.encf} recibido; acuse de recibo firmado por ${signature.certificate.subject}`,
    ecfEnviado: { rncEmisor: SANDBOX_SIGNER_RNC, ...ecfEnviado },
  };
}

/** DGII, playing that e-CF's buyer, approves one of the taxpayer's accepted e-CF at the registered approvals URL. */
export async function sendApprovalToReceiver(
  ctx: SandboxContext,
  p: Postulacion,
  invoice: { encf: string; fechaEmision: string; montoTotal: string; rncComprador: string },
): Promise<CommunicationResult> {
  const token = await tokenFor(ctx, p.urlsPrueba);
  if (typeof token !== "string") return token;
  const signer = await ctx.signer();
  const xml = await signEcfXml(
    buildAcecf({
      RNCEmisor: p.rnc,
      eNCF: invoice.encf,
      FechaEmision: invoice.fechaEmision,
      MontoTotal: invoice.montoTotal,
      RNCComprador: invoice.rncComprador,
      Estado: "1",
      FechaHoraAprobacionComercial: formatDgiiDateTime(ctx.now()),
    }),
    signer.key,
    signer.certificateDer,
  );
  const url = p.urlsPrueba.aprobacionComercial;
  try {
    const response = await postXmlFile(
      url,
      xml,
      `${invoice.rncComprador}${invoice.encf}.xml`,
      "application/json",
      token,
    );
    if (response.ok) return { ok: true, detalle: `Aprobación comercial de ${invoice.encf} entregada` };
    return {
      ok: false,
      detalle: `La aprobación comercial respondió HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`,
    };
  } catch (error) {
    return { ok: false, detalle: `No se pudo conectar con ${url}: ${String(error)}` };
  }
}
