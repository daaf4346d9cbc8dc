// The chain check a received signature's certificate must pass: issued by a configured authority,
// every link valid at the signing time; a self-signed or other-CA certificate is refused.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkCertificateTrust, keyInfoCertificates, toBase64, trustStoreFromPem } from "../src/index.ts";
import { createTestIdentity, DEMO_CA_CERTIFICATE_PEM } from "./support/certs.ts";

const at = new Date("2027-03-01T12:00:00Z");

describe("checkCertificateTrust", async () => {
  const store = trustStoreFromPem(DEMO_CA_CERTIFICATE_PEM);
  const issued = await createTestIdentity({ rnc: "131880681" });
  const selfSigned = await createTestIdentity({ rnc: "131880681", issuer: "self" });

  it("trusts a certificate the configured CA issued", async () => {
    expect(await checkCertificateTrust(store, issued.certificateDer, at)).toEqual({
      ok: true,
      anchor: expect.stringContaining("Demo CA"),
    });
  });

  it("refuses a self-signed certificate with the same subject", async () => {
    expect(await checkCertificateTrust(store, selfSigned.certificateDer, at)).toMatchObject({
      ok: false,
      reason: "untrusted_issuer",
    });
  });

  it("refuses a certificate whose issuer name is the CA's but whose signature is not", async () => {
    const impostorCa = await createTestIdentity({
      commonName: "ecf-edge Demo CA (DGII sandbox only, not accredited)",
      issuer: "self",
      ca: true,
    });
    const forged = await createTestIdentity({ issuer: impostorCa });
    expect(await checkCertificateTrust(store, forged.certificateDer, at)).toMatchObject({
      ok: false,
      reason: "untrusted_issuer",
    });
  });

  it("follows a supplied intermediate CA to the anchor, and not a non-CA link", async () => {
    const intermediate = await createTestIdentity({ commonName: "INTERMEDIATE CA", ca: true });
    const leaf = await createTestIdentity({ issuer: intermediate });
    expect(await checkCertificateTrust(store, leaf.certificateDer, at, [intermediate.certificateDer])).toMatchObject({
      ok: true,
    });
    expect(await checkCertificateTrust(store, leaf.certificateDer, at)).toMatchObject({
      ok: false,
      reason: "untrusted_issuer",
    });
    const notCa = await createTestIdentity({ commonName: "NOT A CA" });
    const below = await createTestIdentity({ issuer: notCa });
    expect(await checkCertificateTrust(store, below.certificateDer, at, [notCa.certificateDer])).toMatchObject({
      ok: false,
    });
  });

  it("refuses a certificate used outside its validity; an empty store trusts nothing; accept-any is explicit", async () => {
    expect(await checkCertificateTrust(store, issued.certificateDer, new Date("2029-01-01T00:00:00Z"))).toMatchObject({
      reason: "certificate_not_valid",
    });
    expect(await checkCertificateTrust(trustStoreFromPem(""), issued.certificateDer, at)).toMatchObject({ ok: false });
    expect(
      await checkCertificateTrust(trustStoreFromPem("", { acceptAny: true }), selfSigned.certificateDer, at),
    ).toEqual({ ok: true, anchor: null });
  });
});

it("the worker's local default trust store (wrangler.toml TRUSTED_CA_PEM) is the sandbox's demo CA", () => {
  const toml = readFileSync(join(import.meta.dirname, "../../wrangler.toml"), "utf8");
  const configured = /^TRUSTED_CA_PEM = """\n([\s\S]*?)"""/m.exec(toml)?.[1];
  expect(configured?.trim()).toBe(DEMO_CA_CERTIFICATE_PEM.trim());
});

it("keyInfoCertificates reads every certificate of the signature's KeyInfo, the signer's first, prefixed or not", () => {
  const a = new Uint8Array([1, 2, 3]);
  const b = new Uint8Array([4, 5, 6, 7]);
  const cert = (p: string, der: Uint8Array) => `<${p}X509Certificate>${toBase64(der)}</${p}X509Certificate>`;
  for (const p of ["", "ds:"]) {
    const xml = `<ECF><X509Certificate>AAAA</X509Certificate><${p}Signature><${p}KeyInfo><${p}X509Data>${cert(p, a)}${cert(p, b)}</${p}X509Data></${p}KeyInfo></${p}Signature></ECF>`;
    expect(keyInfoCertificates(xml)).toEqual([a, b]);
  }
  expect(keyInfoCertificates("<ECF/>")).toEqual([]);
});
