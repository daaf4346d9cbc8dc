// Runs in Node before the workerd tests: makes what workerd cannot make quickly (RSA keys and
// .p12 files, via node-forge and openssl) and hands it to the tests through `inject`.
import type { TestProject } from "vitest/node";
import "./provided.ts";
import { startWebhookSink } from "./support/webhook-sink.ts";
import { startZipVerifier } from "./support/zip-verifier.ts";
import { startSandbox } from "@ecf/dgii-sandbox/start";
import {
  createTestIdentity,
  DEMO_CA_CERTIFICATE_PEM,
  forgeP12,
  opensslEcP12,
  opensslP12,
} from "@ecf/shared/test-support/certs";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

export default async function setup(project: TestProject) {
  const sandbox = await startSandbox({
    port: Number(process.env.ECF_TEST_SANDBOX_PORT),
    processingMs: 100,
    smtpPort: Number(process.env.ECF_TEST_SMTP_PORT),
  });
  project.provide("sandboxUrl", sandbox.url);
  const sink = await startWebhookSink();
  project.provide("webhookSinkUrl", sink.url);
  const password = "clave-de-prueba";
  const identity = await createTestIdentity({
    rnc: "131880681",
    commonName: "DEMO COMERCIAL SRL",
    notAfter: new Date("2030-01-01T00:00:00Z"),
  });
  // The same issuer's next certificate (another key), for a certificate change.
  const renewed = await createTestIdentity({
    rnc: "131880681",
    commonName: "DEMO COMERCIAL SRL",
    notAfter: new Date("2031-01-01T00:00:00Z"),
  });
  const expired = await createTestIdentity({
    rnc: "131880681",
    notBefore: new Date("2020-01-01T00:00:00Z"),
    notAfter: new Date("2021-01-01T00:00:00Z"),
  });
  // A throw-away self-signed certificate with the issuer's own subject: what a forger signs with.
  const selfSigned = await createTestIdentity({ rnc: "131880681", commonName: "DEMO COMERCIAL SRL", issuer: "self" });
  // A supplier whose certificate an intermediate CA issued (the intermediate is the demo CA's):
  // trusted only when the document's KeyInfo carries the intermediate too.
  const intermediate = await createTestIdentity({ commonName: "DEMO INTERMEDIATE CA", ca: true });
  const chained = await createTestIdentity({
    rnc: "131880681",
    commonName: "DEMO COMERCIAL SRL",
    issuer: intermediate,
  });
  // An issuer's registered representative: a person, so the certificate's serialNumber carries a cédula.
  const representative = await createTestIdentity({ rnc: "00112345678", commonName: "MARIA PEREZ" });
  // Every test signature (issuers and suppliers alike) is this identity's: the one xmlsec1 trusts.
  const zipVerifier = await startZipVerifier(identity.certificatePem, DEMO_CA_CERTIFICATE_PEM);
  project.provide("zipVerifierUrl", zipVerifier.url);
  project.provide("certificates", {
    password,
    legacyP12: b64(opensslP12(identity, password, "legacy-rc2")),
    forgeP12: b64(forgeP12(identity, password, "3des")),
    modernP12: b64(opensslP12(identity, password, "aes")),
    expiredP12: b64(forgeP12(expired, password, "3des")),
    renewedP12: b64(forgeP12(renewed, password, "3des")),
    renewedCertificatePem: renewed.certificatePem,
    ecP12: b64(opensslEcP12(password)),
    pkcs8: b64(identity.pkcs8),
    certificateDer: b64(identity.certificateDer),
    certificatePem: identity.certificatePem,
    selfSignedPkcs8: b64(selfSigned.pkcs8),
    selfSignedCertificateDer: b64(selfSigned.certificateDer),
    chainedPkcs8: b64(chained.pkcs8),
    chainedCertificateDer: b64(chained.certificateDer),
    intermediateCertificateDer: b64(intermediate.certificateDer),
    representativeP12: b64(forgeP12(representative, password, "3des")),
    representativeCertificatePem: representative.certificatePem,
  });
  return async () => {
    await sandbox.close();
    await sink.close();
    await zipVerifier.close();
  };
}
