// A certified provider's client on DGII's short path (Guía para contribuyentes con proveedor,
// March 2025), after the provider's own full walk: the client's run names the provider, and only
// the simulation, the printed copies, the production URLs, the declaración and DGII's status are
// left to it. The simulation invoices are the provider's data-set models, issued as the client.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@ecf/client";
import { certificationApi, expectStep, simulate } from "./certification.ts";
import { SandboxPortal } from "./dgii-acts.ts";
import { revokeKey, setUpIssuer } from "./issuer.ts";
import type { CertifyResult } from "./run.ts";
// @ts-expect-error: plain JavaScript helper shared with the other root scripts.
import { certificatePemOfP12, generateTestP12 } from "../demo-certificate.mjs";

export interface ClientWalkOptions {
  providerRnc: string;
  /** The provider's data tests: their models (re-issued as the client) and their ranges. */
  providerDataTests: CertifyResult;
  client: { rnc: string; legalName: string };
  representative: { cedula: string; name: string };
  ecfTypes: string[];
  out: string;
  productionOrigin: string;
  log?: (line: string) => void;
}

export interface ClientWalkResult {
  simulation: { encf: string; estado: string }[];
  run: Record<string, any>;
  files: { postulacion: string; printedCopies: string; declaracion: string };
  representativePem: string;
}

const PASSWORD = "certify1234";

/** The provider's data tests with every model's issuer made the client. */
function asClient(dataTests: CertifyResult, client: { rnc: string; legalName: string }): CertifyResult {
  const outcomes = dataTests.outcomes.map((outcome) => {
    const document = structuredClone(outcome.c.document) as Record<string, any>;
    document.Encabezado.Emisor.RNCEmisor = client.rnc;
    document.Encabezado.Emisor.RazonSocialEmisor = client.legalName;
    return { ...outcome, c: { ...outcome.c, document } };
  });
  return { ...dataTests, rnc: client.rnc, outcomes };
}

export async function walkProviderClient(
  target: { workerUrl: string; adminSecret: string; sandboxUrl: string },
  o: ClientWalkOptions,
): Promise<ClientWalkResult> {
  const log = o.log ?? (() => {});
  const portal = new SandboxPortal(target.sandboxUrl);
  const p12: Uint8Array = generateTestP12({
    commonName: o.representative.name,
    serialNumber: `IDCDO-${o.representative.cedula}`,
    password: PASSWORD,
  });
  const certificatePem = certificatePemOfP12(p12, PASSWORD);
  const setup = await setUpIssuer(
    target.workerUrl,
    target.adminSecret,
    { ...o.client, dgiiEnvironment: "certecf" },
    { p12, password: PASSWORD },
    [],
    { url: target.sandboxUrl, certificatePem },
  );
  const run = certificationApi(
    createClient({ baseUrl: target.workerUrl, credentials: { apiKey: setup.apiKey, apiSecret: setup.apiSecret } }),
  );
  const files = {
    postulacion: join(o.out, `postulacion-${o.client.rnc}.xml`),
    printedCopies: join(o.out, `representaciones-impresas-${o.client.rnc}.pdf`),
    declaracion: join(o.out, `declaracion-${o.client.rnc}.xml`),
  };
  try {
    await run.start({
      representative: o.representative,
      ecfTypes: o.ecfTypes,
      applicant: "provider-client",
      providerRnc: o.providerRnc,
      publicOrigin: target.workerUrl,
    });
    const postulacion = await run.signed("postulacion");
    writeFileSync(files.postulacion, postulacion);
    expectStep(await portal.apply(postulacion), "1 postulación");
    log(`1 Registrado: ${o.client.rnc}, client of provider ${o.providerRnc}`);
    const simulation = await simulate(
      target,
      setup.companyId,
      asClient(o.providerDataTests, o.client),
      o.ecfTypes,
      o.out,
      log,
    );
    await run.sync();
    const pdf = await run.printedCopies(simulation.map((s) => s.encf));
    writeFileSync(files.printedCopies, pdf);
    expectStep(
      await portal.act(o.client.rnc, "representacion-impresa", { file: pdf, fileName: "representaciones.pdf" }),
      "5 printed copies",
    );
    const production = (await run.show()).receiverUrls as Record<string, string>;
    const urls = Object.fromEntries(
      Object.entries(production).map(([k, v]) => [k, v.replace(target.workerUrl, o.productionOrigin)]),
    );
    expectStep(await portal.act(o.client.rnc, "url-produccion", { urls }), "11 production URLs");
    const declaracion = await run.signed("declaracion");
    writeFileSync(files.declaracion, declaracion);
    expectStep(
      await portal.act(o.client.rnc, "declaracion-jurada", { file: declaracion, fileName: "declaracion.xml" }),
      "12 declaración",
    );
    const finished = await run.sync();
    log(`Client certified: ${finished.certified}`);
    return { simulation, run: finished, files, representativePem: certificatePem };
  } finally {
    await revokeKey(target.workerUrl, target.adminSecret, setup.keyId).catch(() => {});
  }
}
