// The certification portal's documents and calls, for the tests: a postulación and a declaración
// jurada signed like any DGII document, and the portal's JSON answers.
import { signXml } from "@ecf/shared";
import type { TestIdentity } from "@ecf/shared/test-support/certs";
import type { Posted } from "./dgii-client.ts";

export interface Applicant {
  rnc: string;
  razonSocial: string;
  cedula: string;
  nombre: string;
  tipos: string[];
  receiver: string;
  tipoPostulante?: "Contribuyente" | "ProveedorServicios";
  rncProveedor?: string;
}

export function postulacionXml(a: Applicant): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><Postulacion><Version>1.0</Version><RNC>${a.rnc}</RNC>` +
    `<RazonSocial>${a.razonSocial}</RazonSocial>` +
    `<Representante><Cedula>${a.cedula}</Cedula><Nombre>${a.nombre}</Nombre></Representante>` +
    `<TipoPostulante>${a.tipoPostulante ?? "Contribuyente"}</TipoPostulante>` +
    (a.rncProveedor ? `<RNCProveedor>${a.rncProveedor}</RNCProveedor>` : "") +
    `<TiposeCF>${a.tipos.map((t) => `<TipoeCF>${t}</TipoeCF>`).join("")}</TiposeCF>` +
    `<URLRecepcion>${a.receiver}/fe/recepcion/api/ecf</URLRecepcion>` +
    `<URLAprobacionComercial>${a.receiver}/fe/aprobacioncomercial/api/ecf</URLAprobacionComercial>` +
    `<URLAutenticacion>${a.receiver}/fe/autenticacion</URLAutenticacion></Postulacion>`
  );
}

export function declaracionXml(a: Applicant): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><DeclaracionJurada><Version>1.0</Version><RNC>${a.rnc}</RNC>` +
    `<Representante><Cedula>${a.cedula}</Cedula><Nombre>${a.nombre}</Nombre></Representante>` +
    `<Declaracion>Declaro que el sistema cumple la norma 06-2018 y sus modificaciones.</Declaracion></DeclaracionJurada>`
  );
}

export const signedBy = (identity: TestIdentity, xml: string) =>
  signXml(xml, identity.privateKey, identity.certificateDer);

async function answer(response: Response): Promise<Posted> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export class Portal {
  constructor(readonly base: string) {}

  async apply(signedXml: string): Promise<Posted> {
    const form = new FormData();
    form.append("xml", new Blob([signedXml], { type: "text/xml" }), "postulacion.xml");
    return answer(await fetch(`${this.base}/portal/certificacion/postulacion`, { method: "POST", body: form }));
  }

  async status(rnc: string): Promise<Posted> {
    return answer(await fetch(`${this.base}/portal/certificacion/${rnc}`));
  }

  /** The person's act of a step: a file (multipart `archivo`), the URLs (JSON), or nothing. */
  async act(rnc: string, paso: string, body?: { file?: Uint8Array | string; urls?: unknown }): Promise<Posted> {
    let init: RequestInit = { method: "POST" };
    if (body?.file !== undefined) {
      const form = new FormData();
      form.append(
        "archivo",
        new Blob([body.file as BlobPart]),
        paso === "declaracion-jurada" ? "declaracion.xml" : "copias.pdf",
      );
      init = { method: "POST", body: form };
    } else if (body?.urls) {
      init = {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ urls: body.urls }),
      };
    }
    return answer(await fetch(`${this.base}/portal/certificacion/${rnc}/${paso}`, init));
  }
}

/** The state of one step in a portal answer. */
export const stepOf = (status: Posted, id: string) =>
  (status.body.pasos as { id: string; estado: string; reinicios?: number; detalle?: string }[]).find(
    (s) => s.id === id,
  )!;
