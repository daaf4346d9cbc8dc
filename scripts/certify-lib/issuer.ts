// Sets up an issuer through the worker's administration API (company, certificate, e-NCF ranges,
// a test key) and talks to the issuing API with the key's token. Shared by `npm run certify` and
// the issuing bench.
import { TIPOS_ECF, type TipoeCF } from "@ecf/shared";

export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

async function call<T>(baseUrl: string, method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
  const isForm = body instanceof FormData;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${auth}`, ...(body === undefined || isForm ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  if (!res.ok && res.status !== 202 && res.status !== 503) {
    const detail = (json as { detail?: string } | null)?.detail ?? text;
    throw new HttpError(`${method} ${path} → ${res.status}: ${detail}`, res.status, json);
  }
  return { status: res.status, body: json as T, headers: res.headers };
}

export interface IssuerProfile {
  rnc: string;
  legalName: string;
  tradeName?: string;
  address?: string;
  municipality?: string;
  province?: string;
  dgiiEnvironment?: "testecf" | "certecf" | "ecf";
}

export interface RangeRequest {
  tipo: TipoeCF;
  rangeFrom: number;
  rangeTo: number;
  /** yyyy-MM-dd */
  expiresOn: string;
}

export interface IssuerSetup {
  companyId: string;
  created: boolean;
  keyId: string;
  apiKey: string;
  apiSecret: string;
  /** Ranges that could not be registered as asked, and why. */
  rangeNotes: string[];
}

/** The company (created when absent), its certificate, its ranges and a fresh test key. */
export async function setUpIssuer(
  workerUrl: string,
  adminSecret: string,
  profile: IssuerProfile,
  certificate: { p12: Uint8Array; password: string },
  ranges: readonly RangeRequest[],
): Promise<IssuerSetup> {
  const admin = <T>(method: string, path: string, body?: unknown) => call<T>(workerUrl, method, path, adminSecret, body).then((r) => r.body);
  const { companies } = await admin<{ companies: { id: string }[] }>("GET", `/admin/companies?rnc=${profile.rnc}`);
  let company = companies[0];
  const created = !company;
  if (!company) {
    const clip = (s: string | undefined, n: number) => (s ? s.slice(0, n) : undefined);
    company = await admin<{ id: string }>("POST", "/admin/companies", {
      rnc: profile.rnc,
      legalName: clip(profile.legalName, 150),
      ...(profile.tradeName ? { tradeName: clip(profile.tradeName, 150) } : {}),
      ...(profile.address ? { address: clip(profile.address, 100) } : {}),
      ...(profile.municipality ? { municipality: profile.municipality } : {}),
      ...(profile.province ? { province: profile.province } : {}),
      dgiiEnvironment: profile.dgiiEnvironment ?? "certecf",
      invoiceLimitPerMonth: 100_000,
    });
  }
  const form = new FormData();
  form.set("file", new File([certificate.p12 as Uint8Array<ArrayBuffer>], `${profile.rnc}-test.p12`, { type: "application/x-pkcs12" }));
  form.set("password", certificate.password);
  await admin("PUT", `/admin/companies/${company.id}/certificate`, form);
  const rangeNotes: string[] = [];
  for (const r of ranges) {
    // Registering a range again keeps its next number, so a second run reuses the same numbers.
    try {
      await admin("PUT", `/admin/companies/${company.id}/sequences/${r.tipo}`, { rangeFrom: r.rangeFrom, rangeTo: r.rangeTo, expiresOn: r.expiresOn });
    } catch (error) {
      // A range that would end before numbers already used: the registered one stays.
      if (!(error instanceof HttpError && error.status === 409)) throw error;
      rangeNotes.push(`E${r.tipo}: range kept as registered (${error.message})`);
    }
  }
  const key = await admin<{ id: string; apiKey: string; apiSecret: string }>("POST", "/admin/keys", { ownerType: "company", ownerId: company.id, kind: "test" });
  return { companyId: company.id, created, keyId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret, rangeNotes };
}

export async function revokeKey(workerUrl: string, adminSecret: string, keyId: string): Promise<void> {
  await call(workerUrl, "POST", `/admin/keys/${keyId}/revoke`, adminSecret);
}

export interface IssueAnswer {
  codigo: string;
  estado: string;
  encf: string;
  trackId: string | null;
  codigoSeguridad: string;
  fechaHoraFirma: string;
  urlTimbre: string;
  mensajes: { codigo: string | null; valor: string }[];
  reenviado: boolean;
}

export interface ProblemBody {
  title?: string;
  detail?: string;
  code?: string;
  errors?: { path: string; code: string; message: string; messageEs?: string; severity?: string }[];
}

/** The issuing API as one integration sees it. */
export async function issuingClient(workerUrl: string, apiKey: string, apiSecret: string) {
  const res = await fetch(`${workerUrl}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ apiKey, apiSecret }) });
  if (!res.ok) throw new HttpError(`POST /login → ${res.status}`, res.status, await res.text());
  const { token } = (await res.json()) as { token: string };
  return {
    /** POST /fe/recepcion/ecf: the answer, or the problem document of a refusal. */
    async issue(document: unknown): Promise<{ status: number; answer?: IssueAnswer; problem?: ProblemBody }> {
      try {
        const r = await call<IssueAnswer>(workerUrl, "POST", "/fe/recepcion/ecf", token, document);
        return { status: r.status, answer: r.body };
      } catch (error) {
        if (error instanceof HttpError) return { status: error.status, problem: error.body as ProblemBody };
        throw error;
      }
    },
    status: (encf: string) => call<IssueAnswer>(workerUrl, "GET", `/fe/recepcion/ecf/${encf}`, token).then((r) => r.body),
    async signedXml(encf: string): Promise<string> {
      const res = await fetch(`${workerUrl}/fe/recepcion/ecf/${encf}/xml`, { headers: { Authorization: `Bearer ${token}` } });
      if (!res.ok) throw new HttpError(`GET xml ${encf} → ${res.status}`, res.status, await res.text());
      return res.text();
    },
  };
}

export const ALL_TIPOS: readonly TipoeCF[] = TIPOS_ECF;
