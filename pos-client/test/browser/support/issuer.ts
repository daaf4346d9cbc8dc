// An issuer as the till's browser tests need it: registered by the admin, its certificate uploaded
// and registered with DGII (the sandbox) as its signer, ranges for the till's types (E32, E31, E34),
// and a token of its own API key for its back office.
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { forgeP12, type TestIdentity } from "@ecf/shared/test-support/certs";
import type { Stack } from "../pos-stack.ts";

export async function createTestIssuer(
  stack: Stack,
  identity: TestIdentity,
  company: { name: string; tradeName: string; registryNumber: string; address: string },
  rangeTo: number,
): Promise<{ id: string }> {
  const created = await stack.admin<{ id: string }>("POST", "/admin/companies", { ...company, dgiiServer: "testecf" });
  const form = new FormData();
  form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  form.set("password", "clave");
  await stack.admin("PUT", `/admin/companies/${created.id}/certificate`, form);
  // DGII (the sandbox) takes the issuer's receipts only signed by its own certificate.
  await registerSigner(stack.sandboxUrl, company.registryNumber, [identity.certificatePem]);
  for (const tipo of ["32", "31", "34"])
    await stack.admin("PUT", `/admin/companies/${created.id}/sequences/${tipo}`, {
      rangeFrom: 1,
      rangeTo,
      expiresOn: "2099-12-31",
    });
  return created;
}

/** A token of a new test API key of the issuer, as its back office logs in. */
export async function issuerToken(stack: Stack, companyId: string): Promise<string> {
  const key = await stack.admin<{ apiKey: string; apiSecret: string }>("POST", "/admin/keys", {
    ownerType: "company",
    ownerId: companyId,
    kind: "test",
  });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(key),
  });
  return ((await login.json()) as { token: string }).token;
}
