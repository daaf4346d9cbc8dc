// A minimal DGII client for the tests: the same HTTP calls the worker makes, nothing mocked.
import { signXml } from "@ecf/shared";
import type { TestIdentity } from "@ecf/shared/test-support/certs";

export interface Posted {
  status: number;
  body: any;
}

export class DgiiClient {
  constructor(
    readonly base: string,
    readonly env = "testecf",
  ) {}

  url(path: string): string {
    return `${this.base}/${this.env}${path}`;
  }

  async seed(): Promise<string> {
    const response = await fetch(this.url("/autenticacion/api/autenticacion/semilla"));
    if (response.status !== 200) throw new Error(`seed: HTTP ${response.status}`);
    return response.text();
  }

  async signedSeed(identity: TestIdentity): Promise<string> {
    return signXml(await this.seed(), identity.privateKey, identity.certificateDer);
  }

  async validateSeed(signedSeed: string): Promise<Posted> {
    return this.postXml("/autenticacion/api/autenticacion/validarsemilla", signedSeed, "semilla.xml");
  }

  async login(identity: TestIdentity): Promise<string> {
    const { status, body } = await this.validateSeed(await this.signedSeed(identity));
    if (status !== 200) throw new Error(`login: HTTP ${status} ${JSON.stringify(body)}`);
    return body.token as string;
  }

  async postXml(path: string, xml: string, fileName: string, token?: string): Promise<Posted> {
    const form = new FormData();
    form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
    const headers: Record<string, string> = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(this.url(path), { method: "POST", body: form, headers });
    return { status: response.status, body: await readBody(response) };
  }

  async get(path: string, token?: string): Promise<Posted> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(this.url(path), { headers });
    return { status: response.status, body: await readBody(response) };
  }

  send(xml: string, fileName: string, token: string): Promise<Posted> {
    return this.postXml("/recepcion/api/facturaselectronicas", xml, fileName, token);
  }

  result(trackId: string, token: string): Promise<Posted> {
    return this.get(`/consultaresultado/api/consultas/estado?trackid=${encodeURIComponent(trackId)}`, token);
  }

  /** Polls consultaresultado until the state is no longer En Proceso (3). */
  async waitFinal(trackId: string, token: string, timeoutMs = 30_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { status, body } = await this.result(trackId, token);
      if (status !== 200) throw new Error(`consultaresultado: HTTP ${status}`);
      if (body.codigo !== 3) return body;
      if (Date.now() > deadline) throw new Error(`track id ${trackId} still En Proceso`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

async function readBody(response: Response): Promise<any> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function control(base: string, method: string, path: string, body?: unknown): Promise<Posted> {
  const response = await fetch(`${base}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: await readBody(response) };
}

/** The RNCs the sandbox tests' documents name as issuer or buyer (the factories' and the test identities'). */
export const TEST_RNCS = ["130862346", "131880738", "131880681", "101010101"] as const;

/**
 * Registers `identity` as an authorized signer of each RNC (PUT /__sandbox/signers), as DGII knows
 * each RNC's delegates: the sandbox takes no one's signature for an RNC that registered no one.
 */
export async function delegate(base: string, identity: TestIdentity, rncs: readonly string[] = TEST_RNCS) {
  for (const rnc of rncs) {
    const res = await control(base, "PUT", "/signers", { rnc, certificates: [identity.certificatePem] });
    if (res.status !== 200) throw new Error(`signers of ${rnc}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  }
}
