// What the person does at DGII during certification, as far as a program can do it against the
// DGII sandbox: upload to its portal (the postulación, the printed copies, the URLs, the
// declaración), and the approvals the representative signs and sends to DGII itself (the
// approvals sheet of the data tests, the approval of the e-CF DGII sent in the communication test).
import { readFileSync } from "node:fs";
import { buildAcecf, readPkcs12, signXml, type AcecfInput } from "@ecf/shared";

export interface PortalAnswer {
  status: number;
  body: {
    error?: string;
    mensaje?: string;
    pasoActual?: { id: string } | null;
    pasos?: { id: string; estado: string }[];
  } & Record<string, unknown>;
}

async function answer(response: Response): Promise<PortalAnswer> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

export class SandboxPortal {
  constructor(readonly sandboxUrl: string) {}

  async apply(signedPostulacion: string): Promise<PortalAnswer> {
    const form = new FormData();
    form.append("xml", new Blob([signedPostulacion], { type: "text/xml" }), "postulacion.xml");
    return answer(await fetch(`${this.sandboxUrl}/portal/certificacion/postulacion`, { method: "POST", body: form }));
  }

  async status(rnc: string): Promise<PortalAnswer> {
    return answer(await fetch(`${this.sandboxUrl}/portal/certificacion/${rnc}`));
  }

  /** The workbook DGII hands this RNC: how many documents each sheet holds. */
  async setSize(rnc: string, size: { ecf: number; rfce: number; acecf: number }): Promise<void> {
    const res = await fetch(`${this.sandboxUrl}/__sandbox/certificacion/${rnc}/set`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(size),
    });
    if (!res.ok) throw new Error(`sandbox set size: HTTP ${res.status} ${await res.text()}`);
  }

  async act(rnc: string, step: string, body?: { file?: Uint8Array | string; fileName?: string; urls?: unknown }) {
    let init: RequestInit = { method: "POST" };
    if (body?.file !== undefined) {
      const form = new FormData();
      form.append("archivo", new Blob([body.file as BlobPart]), body.fileName ?? "archivo");
      init = { method: "POST", body: form };
    } else if (body?.urls) {
      init = {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ urls: body.urls }),
      };
    }
    return answer(await fetch(`${this.sandboxUrl}/portal/certificacion/${rnc}/${step}`, init));
  }
}

/** The representative's signing identity, from the issuer's .p12. */
export async function representativeSigner(p12: Uint8Array, password: string) {
  const contents = readPkcs12(p12, password);
  const key = await crypto.subtle.importKey(
    "pkcs8",
    contents.pkcs8,
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return { key, certificate: contents.certificate };
}
type Signer = Awaited<ReturnType<typeof representativeSigner>>;

/** DGII's token for the representative (seed, signed, exchanged) in certecf. */
async function dgiiToken(sandboxUrl: string, signer: Signer): Promise<string> {
  const base = `${sandboxUrl}/certecf/autenticacion/api/autenticacion`;
  const seed = await (await fetch(`${base}/semilla`)).text();
  const form = new FormData();
  const signed = await signXml(seed, signer.key, signer.certificate);
  form.append("xml", new Blob([signed], { type: "text/xml" }), "semilla.xml");
  const res = await fetch(`${base}/validarsemilla`, {
    method: "POST",
    body: form,
    headers: { accept: "application/json" },
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token)
    throw new Error(`DGII refused the representative's seed: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** Sends each ACECF, signed by the representative, to certecf's aprobacioncomercial; DGII's answer per row. */
export async function sendApprovals(sandboxUrl: string, signer: Signer, approvals: readonly AcecfInput[]) {
  const token = await dgiiToken(sandboxUrl, signer);
  const answers: { encf: string; status: number; body: string }[] = [];
  for (const input of approvals) {
    const xml = await signXml(buildAcecf(input), signer.key, signer.certificate);
    const form = new FormData();
    form.append("xml", new Blob([xml], { type: "text/xml" }), `${input.RNCComprador}${input.eNCF}.xml`);
    const res = await fetch(`${sandboxUrl}/certecf/aprobacioncomercial/api/aprobacioncomercial`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    answers.push({ encf: input.eNCF, status: res.status, body: await res.text() });
  }
  return answers;
}

/** DGII's approvals sheet (ACEECF, saved as CSV): one ACECF per row, in DGII's field order. */
export function readApprovalsSheet(file: string): AcecfInput[] {
  const [header, ...lines] = readFileSync(file, "utf8").trim().split(/\r?\n/);
  const names = header!.split(",").map((h) => h.trim());
  return lines.map((line) => {
    const cells = line.split(",");
    const cell = (name: string) => {
      const value = cells[names.indexOf(name)]?.trim();
      return value && value !== "#e" ? value : undefined;
    };
    const estado = cell("Estado") === "2" ? "2" : "1";
    return {
      RNCEmisor: cell("RNCEmisor")!,
      eNCF: cell("eNCF")!,
      FechaEmision: cell("FechaEmision")!,
      MontoTotal: cell("MontoTotal")!,
      RNCComprador: cell("RNCComprador")!,
      Estado: estado,
      ...(estado === "2" ? { DetalleMotivoRechazo: cell("DetalleMotivoRechazo") ?? "Rechazo de prueba" } : {}),
      FechaHoraAprobacionComercial: cell("FechaHoraAprobacionComercial")!,
    };
  });
}
