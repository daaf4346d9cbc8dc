// Sets up an issuer through the worker's administration API (company, certificate, e-NCF ranges,
// a test key) and talks to the issuing API with the key's token, both through @ecf/client. Shared
// by `npm run certify` and the benches.
import { TIPOS_ECF, type TipoeCF } from "@ecf/shared";
import { answerOf, type components, createClient, type EcfClient, type Problem, ProblemError } from "@ecf/client";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";

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

/** The operator's client: the administration secret as bearer. */
export const adminApi = (workerUrl: string, adminSecret: string): EcfClient =>
  createClient({ baseUrl: workerUrl, credentials: { adminSecret } });

/**
 * The company (created when absent), its certificate, its ranges and a fresh test key. Given a DGII
 * sandbox, the certificate is registered there as the RNC's authorized signer (as DGII knows each
 * RNC's delegates), since the sandbox takes nothing signed for an RNC that registered no one.
 */
export async function setUpIssuer(
  workerUrl: string,
  adminSecret: string,
  profile: IssuerProfile,
  certificate: { p12: Uint8Array; password: string },
  ranges: readonly RangeRequest[],
  dgiiSandbox?: { url: string; certificatePem: string },
): Promise<IssuerSetup> {
  const admin = adminApi(workerUrl, adminSecret);
  const { data: found } = await admin.GET("/admin/companies", { params: { query: { registryNumber: profile.rnc } } });
  let company: { id: string } | undefined = found?.companies[0];
  const created = !company;
  if (!company) {
    const clip = (s: string | undefined, n: number) => (s ? s.slice(0, n) : undefined);
    const { data } = await admin.POST("/admin/companies", {
      body: {
        registryNumber: profile.rnc,
        name: clip(profile.legalName, 150)!,
        ...(profile.tradeName ? { tradeName: clip(profile.tradeName, 150) } : {}),
        ...(profile.address ? { address: clip(profile.address, 100) } : {}),
        ...(profile.municipality ? { municipality: profile.municipality } : {}),
        ...(profile.province ? { province: profile.province } : {}),
        dgiiServer: profile.dgiiEnvironment ?? "certecf",
        invoiceLimitPerMonth: 100_000,
      },
    });
    company = data!;
  }
  const id = company.id;
  const file = new File([certificate.p12 as Uint8Array<ArrayBuffer>], `${profile.rnc}-test.p12`, {
    type: "application/x-pkcs12",
  });
  await admin.PUT("/admin/companies/{id}/certificate", {
    params: { path: { id } },
    body: { file, password: certificate.password },
  });
  if (dgiiSandbox) await registerSigner(dgiiSandbox.url, profile.rnc, [dgiiSandbox.certificatePem]);
  const rangeNotes: string[] = [];
  for (const r of ranges) {
    // Registering a range again keeps its next number, so a second run reuses the same numbers.
    try {
      await admin.PUT("/admin/companies/{id}/sequences/{tipo}", {
        params: { path: { id, tipo: r.tipo } },
        body: { rangeFrom: r.rangeFrom, rangeTo: r.rangeTo, expiresOn: r.expiresOn },
      });
    } catch (error) {
      // A range that would end before numbers already used: the registered one stays.
      if (!(error instanceof ProblemError && error.status === 409)) throw error;
      rangeNotes.push(`E${r.tipo}: range kept as registered (${error.message})`);
    }
  }
  const { data: key } = await admin.POST("/admin/keys", { body: { ownerType: "company", ownerId: id, kind: "test" } });
  return { companyId: id, created, keyId: key!.id, apiKey: key!.apiKey, apiSecret: key!.apiSecret, rangeNotes };
}

export async function revokeKey(workerUrl: string, adminSecret: string, keyId: string): Promise<void> {
  await adminApi(workerUrl, adminSecret).POST("/admin/keys/{id}/revoke", { params: { path: { id: keyId } } });
}

export type IssueAnswer = components["schemas"]["IssueAnswer"];
/** A refusal's problem document; an e-CF's own problems may carry `messageEs` and `severity`. */
export type ProblemBody = Omit<Problem, "errors"> & {
  errors?: (Problem["errors"][number] & { messageEs?: string; severity?: string })[];
};

type EcfRequest = components["schemas"]["EcfRequest"];

/** The issuing API as one integration sees it. */
export async function issuingClient(workerUrl: string, apiKey: string, apiSecret: string) {
  const api = createClient({ baseUrl: workerUrl, credentials: { apiKey, apiSecret } });
  // Logged in now, as before the first document, so a wrong key fails here.
  await api.session.bearer();
  return {
    api,
    /** POST /fe/recepcion/ecf: the answer (Contingencia's 503 included), or the problem document of a refusal. */
    async issue(document: unknown): Promise<{ status: number; answer?: IssueAnswer; problem?: ProblemBody }> {
      try {
        // The test set's rows are checked by the worker, not by the type: that is what certification is for.
        const sent = await api.POST("/fe/recepcion/ecf", { body: document as EcfRequest });
        // A Contingencia's 503 is an answer too; problems were thrown.
        return { status: sent.response.status, answer: answerOf(sent) };
      } catch (error) {
        if (error instanceof ProblemError) return { status: error.status, problem: error.body };
        throw error;
      }
    },
    async status(encf: string): Promise<IssueAnswer> {
      const answer = answerOf(await api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } }));
      if (!answer) throw new Error(`GET /fe/recepcion/ecf/${encf}: no answer`);
      return answer;
    },
    async signedXml(encf: string): Promise<string> {
      const { data } = await api.GET("/fe/recepcion/ecf/{encf}/xml", { params: { path: { encf } }, parseAs: "text" });
      return data!;
    },
  };
}

export const ALL_TIPOS: readonly TipoeCF[] = TIPOS_ECF;
