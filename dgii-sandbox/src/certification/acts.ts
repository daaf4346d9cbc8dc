// What the person does in DGII's certecf portal, step by step, and what DGII answers. Each act
// takes the postulación at its current step and returns its next version, or DGII's refusal.
import type { SandboxContext } from "../context.ts";
import { isDelegate, NOT_A_DELEGATE } from "../signers.ts";
import { sendApprovalToReceiver, sendEcfToReceiver } from "./communication.ts";
import { DocumentError, readDeclaracion } from "./documents.ts";
import { complete, type Postulacion, type ReceiverUrls, withDetail } from "./postulacion.ts";
import type { StepId } from "./steps.ts";

export type ActResult =
  | { ok: true; p: Postulacion }
  | { ok: false; status: 400 | 422; error: string; mensaje: string; p?: Postulacion };

const refused = (error: string, mensaje: string, status: 400 | 422 = 400): ActResult => ({
  ok: false,
  status,
  error,
  mensaje,
});

/** DGII's limit for the printed copies' upload. */
export const PRINTED_COPIES_LIMIT = 10 * 1024 * 1024;

/** What each act receives from the request: a file, the URLs, or nothing. */
export interface ActInput {
  file?: { bytes: Uint8Array; name: string };
  urls?: Partial<ReceiverUrls>;
}

type Act = (ctx: SandboxContext, p: Postulacion, input: ActInput) => Promise<ActResult>;

export const ACTS: Partial<Record<StepId, Act>> = {
  "representacion-impresa": async (ctx, p, { file }) => {
    if (!file) return refused("archivo_requerido", "Adjunte las representaciones impresas en un PDF (campo archivo)");
    if (file.bytes.length > PRINTED_COPIES_LIMIT)
      return refused("archivo_muy_grande", `El archivo excede 10 MB (${file.bytes.length} bytes)`);
    if (new TextDecoder().decode(file.bytes.subarray(0, 5)) !== "%PDF-")
      return refused("archivo_invalido", "El archivo de representaciones impresas debe ser un PDF");
    return {
      ok: true,
      p: complete(p, "representacion-impresa", ctx.now(), `PDF de ${file.bytes.length} bytes aprobado`),
    };
  },
  "url-prueba": async (ctx, p, { urls }) => {
    const checked = receiverUrls({ ...p.urlsPrueba, ...urls }, false);
    if (typeof checked === "string") return refused("url_invalida", checked);
    return {
      ok: true,
      p: complete({ ...p, urlsPrueba: checked }, "url-prueba", ctx.now(), "URL de prueba registradas"),
    };
  },
  "inicio-recepcion-ecf": async (ctx, p) => {
    const sent = await sendEcfToReceiver(ctx, p);
    if (!sent.ok)
      return { ...refused("recepcion_fallida", sent.detalle, 422), p: withDetail(p, "recepcion-ecf", sent.detalle) };
    const started = complete({ ...p, ecfEnviado: sent.ecfEnviado }, "inicio-recepcion-ecf", ctx.now());
    return { ok: true, p: complete(started, "recepcion-ecf", ctx.now(), sent.detalle) };
  },
  "inicio-aprobacion-comercial": async (ctx, p) => {
    const invoice = approvableInvoice(ctx, p.rnc);
    if (!invoice)
      return refused(
        "sin_ecf_aprobable",
        "No hay un e-CF aceptado del contribuyente (31, 33, 34, 44 o 45) que aprobar",
        422,
      );
    const sent = await sendApprovalToReceiver(ctx, p, invoice);
    if (!sent.ok)
      return {
        ...refused("aprobacion_fallida", sent.detalle, 422),
        p: withDetail(p, "aprobacion-comercial", sent.detalle),
      };
    return { ok: true, p: complete(p, "inicio-aprobacion-comercial", ctx.now(), sent.detalle) };
  },
  "url-produccion": async (ctx, p, { urls }) => {
    const checked = receiverUrls(urls ?? {}, true);
    if (typeof checked === "string") return refused("url_invalida", checked);
    return {
      ok: true,
      p: complete({ ...p, urlsProduccion: checked }, "url-produccion", ctx.now(), "URL de producción registradas"),
    };
  },
  "declaracion-jurada": async (ctx, p, { file }) => {
    if (!file) return refused("archivo_requerido", "Adjunte la declaración jurada firmada (campo xml)");
    const xml = new TextDecoder().decode(file.bytes);
    const signed = await signedByRepresentative(ctx, p, xml);
    if (signed) return refused("firma_invalida", signed);
    let declaracion;
    try {
      declaracion = readDeclaracion(xml);
    } catch (error) {
      if (error instanceof DocumentError || error instanceof Error)
        return refused("declaracion_invalida", error.message);
      throw error;
    }
    if (declaracion.rnc !== p.rnc)
      return refused("declaracion_invalida", `La declaración es del RNC ${declaracion.rnc}`);
    const now = ctx.now();
    const declared = complete(p, "declaracion-jurada", now, "Declaración jurada recibida");
    return {
      ok: true,
      p: complete(complete(declared, "verificacion-estatus", now, "Estatus verificado"), "finalizado", now),
    };
  },
};

/**
 * DGII checks that the signer is the RNC's registered representative: the certificate's holder
 * (the cédula in its serialNumber) must be the one the postulación names, and a delegate of the RNC.
 * Returns DGII's refusal, or undefined when the signature is the representative's.
 */
export async function signedByRepresentative(
  ctx: SandboxContext,
  p: Pick<Postulacion, "rnc" | "representante">,
  xml: string,
): Promise<string | undefined> {
  const signature = await ctx.checks.verifySignature(xml);
  if (!signature.ok) return `La firma del documento no es válida: ${signature.message}`;
  if (signature.certificate.holderId !== p.representante.cedula)
    return `El firmante (${signature.certificate.holderId ?? signature.certificate.subject}) no es el representante registrado (cédula ${p.representante.cedula})`;
  if (!isDelegate(ctx, p.rnc, signature.certificate)) return NOT_A_DELEGATE(p.rnc);
  return undefined;
}

function receiverUrls(urls: Partial<ReceiverUrls>, production: boolean): ReceiverUrls | string {
  const names = ["recepcion", "aprobacionComercial", "autenticacion"] as const;
  for (const name of names) {
    const value = urls[name];
    if (typeof value !== "string" || !/^https?:\/\/\S+$/i.test(value)) return `Falta la URL de ${name} o no es válida`;
    if (production && !value.toLowerCase().startsWith("https://"))
      return `La URL de ${name} de producción debe usar https`;
  }
  return {
    recepcion: urls.recepcion!,
    aprobacionComercial: urls.aprobacionComercial!,
    autenticacion: urls.autenticacion!,
  };
}

const APPROVABLE = new Set(["31", "33", "34", "44", "45"]);

/** One of the taxpayer's e-CF accepted in certecf that a buyer may approve. */
function approvableInvoice(ctx: SandboxContext, rnc: string) {
  for (const r of ctx.state.receptions.values()) {
    const { summary, outcome } = r;
    if (r.env !== "certecf" || summary.rncEmisor !== rnc || !APPROVABLE.has(summary.tipo)) continue;
    if (outcome?.codigo !== 1 && outcome?.codigo !== 4) continue;
    if (!summary.fechaEmision || !summary.montoTotal || !summary.rncComprador) continue;
    const { encf, fechaEmision, montoTotal, rncComprador } = summary;
    return { encf, fechaEmision, montoTotal, rncComprador };
  }
  return undefined;
}
