// One issuer's DGII certification from start to finish against the DGII sandbox, as `npm run
// certify -- --walk` runs it: the worker's certification run (/company/certification) for every
// step a program can take, and the person's acts done the way the sandbox's portal takes them.
// Each step's verdict is read back from the portal into the run (POST /company/certification/sync).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatDgiiDateTime } from "@ecf/shared";
import { cellOf } from "@ecf/shared/testset";
import { createClient, type EcfClient } from "@ecf/client";
import { readApprovalsSheet, representativeSigner, SandboxPortal, sendApprovals } from "./dgii-acts.ts";
import { adminApi, issuingClient, revokeKey, setUpIssuer } from "./issuer.ts";
import { certify, type CertifyResult, loadCases, settle } from "./run.ts";
// @ts-expect-error: plain JavaScript helper shared with the other root scripts.
import { certificatePemOfP12, generateTestP12 } from "../demo-certificate.mjs";

export interface WalkOptions {
  ecfSheet: string;
  approvalsSheet: string;
  out: string;
  representative: { cedula: string; name: string };
  /** The origin DGII calls for production (https); the test URLs are the worker's own. */
  productionOrigin: string;
  /** How the issuer applies: alone (default), or as a software house certifying itself as provider. */
  applicant?: "taxpayer" | "provider";
  log?: (line: string) => void;
}

export interface WalkResult {
  rnc: string;
  dataTests: CertifyResult;
  approvals: { encf: string; status: number }[];
  simulation: { encf: string; estado: string }[];
  /** The receiver self-test (POST /company/certification/receiver-check) once the test URLs are registered. */
  receiverCheck: { ok: boolean; checks: { id: string; ok: boolean; url: string; detail: string }[] };
  /** The worker's view of the run after the last step. */
  run: Record<string, any>;
  files: { postulacion: string; declaracion: string; printedCopies: string };
  /** The representative's certificate (PEM) the documents were signed with. */
  representativePem: string;
}

const PASSWORD = "certify1234";

type Run = Record<string, any>;

/** The worker's certification run, through the SDK (a problem is thrown as ProblemError). */
export function certificationApi(api: EcfClient) {
  return {
    start: async (body: Record<string, unknown>) =>
      (await api.PUT("/company/certification", { body: body as never })).data as Run,
    show: async () => (await api.GET("/company/certification")).data as Run,
    sync: async () => (await api.POST("/company/certification/sync")).data as Run,
    receiverCheck: async () => (await api.POST("/company/certification/receiver-check")).data!,
    signed: async (which: "postulacion" | "declaracion") =>
      (await api.GET(`/company/certification/${which}`, { parseAs: "text" })).data as string,
    printedCopies: async (encfs: string[]) =>
      new Uint8Array(
        (
          await api.GET("/company/certification/printed-copies", {
            params: { query: { encf: encfs.join(",") } },
            parseAs: "arrayBuffer",
          })
        ).data as ArrayBuffer,
      ),
  };
}

export function expectStep(answer: { status: number; body: Record<string, any> }, what: string) {
  if (answer.status >= 300)
    throw new Error(`${what}: DGII answered HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Walks a new issuer (the ECF sheet's) through all 14 steps; throws at the first step DGII refuses. */
export async function walkCertification(
  target: { workerUrl: string; adminSecret: string; sandboxUrl: string },
  o: WalkOptions,
): Promise<WalkResult> {
  const log = o.log ?? (() => {});
  const portal = new SandboxPortal(target.sandboxUrl);
  mkdirSync(o.out, { recursive: true });
  const { set, cases } = loadCases(o.ecfSheet);
  const rnc = cellOf(set, set.rows[0]!, "RNCEmisor")!;
  const p12: Uint8Array = generateTestP12({
    commonName: o.representative.name,
    serialNumber: `IDCDO-${o.representative.cedula}`,
    password: PASSWORD,
  });
  const certificatePem = certificatePemOfP12(p12, PASSWORD);
  const profile = {
    rnc,
    legalName: cellOf(set, set.rows[0]!, "RazonSocialEmisor") ?? rnc,
    dgiiEnvironment: "certecf" as const,
  };
  const setup = await setUpIssuer(target.workerUrl, target.adminSecret, profile, { p12, password: PASSWORD }, [], {
    url: target.sandboxUrl,
    certificatePem,
  });
  const run = certificationApi(
    createClient({ baseUrl: target.workerUrl, credentials: { apiKey: setup.apiKey, apiSecret: setup.apiSecret } }),
  );
  try {
    // The types the issuer declares: the data set's, less the credit note, whose every model in the
    // set credits a receipt the set itself already annulled (a second credit would be refused).
    const ecfTypes = [...new Set(cases.map((c) => c.tipo))].filter((t) => t !== "34").sort();
    await run.start({
      representative: o.representative,
      ecfTypes,
      applicant: o.applicant ?? "taxpayer",
      publicOrigin: target.workerUrl,
    });
    const files = {
      postulacion: join(o.out, "postulacion.xml"),
      declaracion: join(o.out, "declaracion.xml"),
      printedCopies: join(o.out, "representaciones-impresas.pdf"),
    };
    const postulacion = await run.signed("postulacion");
    writeFileSync(files.postulacion, postulacion);
    expectStep(await portal.apply(postulacion), "1 postulación");
    log(`1 Registrado: postulación of ${rnc} signed by ${o.representative.name} uploaded`);

    const approvalsRows = readApprovalsSheet(o.approvalsSheet);
    await portal.setSize(rnc, {
      ecf: cases.filter((c) => !c.rfce).length,
      rfce: cases.filter((c) => c.rfce).length,
      acecf: approvalsRows.length,
    });
    const dataTests = await certify(target, {
      file: o.ecfSheet,
      out: join(o.out, "ECF"),
      renewExpired: true,
      p12: { bytes: p12, password: PASSWORD },
      settleMs: 120_000,
    });
    log(
      `2 Pruebas de datos e-CF: ${dataTests.outcomes.filter((x) => x.ok).length}/${dataTests.outcomes.length} Aceptado`,
    );
    const signer = await representativeSigner(p12, PASSWORD);
    const approvals = await sendApprovals(target.sandboxUrl, signer, approvalsRows);
    log(
      `3 Pruebas de datos Aprobación Comercial: ${approvals.filter((a) => a.status === 200).length}/${approvals.length} OK`,
    );

    const simulation = await simulate(target, setup.companyId, dataTests, ecfTypes, o.out, log);
    const pdf = await run.printedCopies(simulation.map((s) => s.encf));
    writeFileSync(files.printedCopies, pdf);
    const synced = await run.sync();
    expectStep(
      await portal.act(rnc, "representacion-impresa", { file: pdf, fileName: "representaciones.pdf" }),
      "5 printed copies",
    );
    expectStep(await portal.act(rnc, "url-prueba", { urls: synced.receiverUrls }), "6 test URLs");
    // Before DGII calls the receiver (steps 7 to 10), the worker calls it as DGII will.
    const receiverCheck = await run.receiverCheck();
    log(`6 Receiver self-test: ${receiverCheck.checks.map((c) => `${c.id} ${c.ok ? "ok" : c.detail}`).join(", ")}`);
    const received = expectStep(await portal.act(rnc, "inicio-recepcion-ecf"), "7-8 reception of DGII's e-CF");
    log(`8 Recepción e-CF: ${received.pasos.find((p: any) => p.id === "recepcion-ecf").detalle}`);
    expectStep(await portal.act(rnc, "inicio-aprobacion-comercial"), "9 DGII's approval to the issuer");
    const sent = received.ecfEnviado as { rncEmisor: string; encf: string; fechaEmision: string; montoTotal: string };
    const back = await sendApprovals(target.sandboxUrl, signer, [
      {
        RNCEmisor: sent.rncEmisor,
        eNCF: sent.encf,
        FechaEmision: sent.fechaEmision,
        MontoTotal: sent.montoTotal,
        RNCComprador: rnc,
        Estado: "1",
        FechaHoraAprobacionComercial: formatDgiiDateTime(new Date()),
      },
    ]);
    log(`10 Recepción Aprobación Comercial: the issuer's approval of ${sent.encf}: HTTP ${back[0]!.status}`);
    const production = (await run.show()).receiverUrls as Record<string, string>;
    const urls = Object.fromEntries(
      Object.entries(production).map(([k, v]) => [k, v.replace(target.workerUrl, o.productionOrigin)]),
    );
    expectStep(await portal.act(rnc, "url-produccion", { urls }), "11 production URLs");
    const declaracion = await run.signed("declaracion");
    writeFileSync(files.declaracion, declaracion);
    expectStep(
      await portal.act(rnc, "declaracion-jurada", { file: declaracion, fileName: "declaracion.xml" }),
      "12 declaración",
    );
    const finished = await run.sync();
    log(`Certified: ${finished.certified}`);
    return {
      rnc,
      dataTests,
      approvals,
      simulation,
      receiverCheck,
      run: finished,
      files,
      representativePem: certificatePem,
    };
  } finally {
    await revokeKey(target.workerUrl, target.adminSecret, setup.keyId).catch(() => {});
  }
}

/**
 * The simulation: one invoice of each type the issuer declared, taken from its data set with a
 * number the worker assigns (the ranges grown past the data set's), followed to DGII's verdict.
 */
export async function simulate(
  target: { workerUrl: string; adminSecret: string; sandboxUrl: string },
  companyId: string,
  dataTests: CertifyResult,
  ecfTypes: string[],
  out: string,
  log: (line: string) => void,
) {
  const admin = adminApi(target.workerUrl, target.adminSecret);
  for (const r of dataTests.ranges)
    await admin.PUT("/admin/companies/{id}/sequences/{tipo}", {
      params: { path: { id: companyId, tipo: r.tipo } },
      body: { rangeFrom: r.rangeFrom, rangeTo: r.rangeTo + 50, expiresOn: r.expiresOn },
    });
  const { data: key } = await admin.POST("/admin/keys", {
    body: { ownerType: "company", ownerId: companyId, kind: "test" },
  });
  const client = await issuingClient(target.workerUrl, key!.apiKey, key!.apiSecret);
  const issued: { encf: string; estado: string }[] = [];
  try {
    for (const tipo of ecfTypes) {
      const model = dataTests.outcomes.find((x) => x.c.tipo === tipo)!.c.document as Record<string, any>;
      const document = structuredClone(model);
      delete document.Encabezado.IdDoc.eNCF;
      const sent = await client.issue(document);
      if (!sent.answer) throw new Error(`simulation E${tipo}: HTTP ${sent.status} ${JSON.stringify(sent.problem)}`);
      const final = await settle(client, sent.answer, 120_000);
      writeFileSync(join(out, `simulacion-${final.encf}.xml`), await client.signedXml(final.encf));
      issued.push({ encf: final.encf, estado: final.estado });
    }
  } finally {
    await revokeKey(target.workerUrl, target.adminSecret, key!.id).catch(() => {});
  }
  log(`4 Simulación: ${issued.map((i) => `${i.encf} ${i.estado}`).join(", ")}`);
  return issued;
}
