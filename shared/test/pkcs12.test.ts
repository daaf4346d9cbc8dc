// readPkcs12 on legacy and modern files, its distinct errors, and the key's life at rest.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { readPkcs12, Pkcs12Error, type Pkcs12ErrorCode } from "../src/signing/pkcs12.ts";
import {
  decryptPkcs8,
  encryptPkcs8,
  importMasterKey,
  importSigningKey,
  KeyAtRestError,
} from "../src/signing/key-at-rest.ts";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { verifyXml } from "../src/signing/verify.ts";
import {
  createTestIdentity,
  forgeP12,
  opensslCertOnlyP12,
  opensslEcP12,
  opensslKeyOnlyP12,
  opensslP12,
  testIdentity,
  xmlsecVerify,
  type TestIdentity,
} from "./support/certs.ts";
import { certificateBag, malformedRsaKeyBag, pfxWithBags, unknownCipherKeyBag } from "./support/pkcs12-builder.ts";

execFileSync("node", [new URL("../../scripts/require-tools.mjs", import.meta.url).pathname, "xmlsec1"], {
  stdio: "inherit",
});

let id: TestIdentity;
let ca: TestIdentity;
beforeAll(async () => {
  id = await testIdentity();
  ca = await createTestIdentity({ rnc: "130222509", commonName: "CA DE PRUEBA" });
});

/** The algorithms openssl reports for a file: proves each case is the kind it claims to be. */
function opensslInfo(p12: Uint8Array, password: string): string {
  // openssl prints the algorithm lines on stderr.
  const r = spawnSync("openssl", ["pkcs12", "-info", "-noout", "-legacy", "-passin", `pass:${password}`], {
    input: p12,
    encoding: "utf8",
  });
  return `${r.stdout}${r.stderr}`;
}

describe("readPkcs12 opens", () => {
  const files: Array<[string, () => Uint8Array, string, RegExp]> = [
    ["node-forge 3DES (legacy)", () => forgeP12(id, "clave-1234"), "clave-1234", /3DES|TripleDES/i],
    ["openssl -legacy RC2-40 + 3DES", () => opensslP12(id, "clave-1234", "legacy-rc2"), "clave-1234", /RC2/i],
    ["openssl 3 default AES-256-CBC / PBKDF2", () => opensslP12(id, "clave-1234", "aes"), "clave-1234", /AES-256-CBC/i],
    ["AES with a non-ASCII password", () => opensslP12(id, "contraseña-ñ", "aes"), "contraseña-ñ", /AES-256-CBC/i],
    ["legacy with a non-ASCII password", () => opensslP12(id, "contraseña-ñ", "legacy-rc2"), "contraseña-ñ", /RC2/i],
    ["node-forge AES-256", () => forgeP12(id, "clave-1234", "aes256"), "clave-1234", /AES-256-CBC/i],
  ];
  it.each(files)("%s", async (_name, make, password, algorithm) => {
    const p12 = make();
    expect(opensslInfo(p12, password)).toMatch(algorithm);
    const contents = readPkcs12(p12, password);
    expect(contents.certificate).toEqual(id.certificateDer);
    expect(contents.chain).toEqual([id.certificateDer]);
    expect(contents).toMatchObject({
      subject: `CN=${id.commonName}, SERIALNUMBER=RNC-${id.rnc}, O=${id.commonName}, C=DO`,
      serialNumber: `RNC-${id.rnc}`,
      holderId: id.rnc,
      certificateSerial: id.rnc,
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2028-01-01T00:00:00Z"),
    });
    // The key is the certificate's key: what it signs verifies with the certificate.
    const key = await importSigningKey(contents.pkcs8);
    const signed = await signEcfXml("<ECF><A>1</A></ECF>", key, contents.certificate);
    expect(xmlsecVerify(signed, id.certificatePem).ok).toBe(true);
  });

  it("puts the holder's certificate first when the file carries the chain", () => {
    const contents = readPkcs12(opensslP12(id, "x", "aes", [ca.certificatePem]), "x");
    expect(contents.certificate).toEqual(id.certificateDer);
    expect(contents.chain).toEqual([id.certificateDer, ca.certificateDer]);
  });

  it("an AES file with a non-ASCII password whose first pass decrypts to valid-looking padding", () => {
    // openssl's output for one random salt in about 256: decrypting the key bag with the password's
    // first form (the MAC's) ends in valid padding, so forge fails later, reading garbage as ASN.1.
    const p12 = new Uint8Array(readFileSync(new URL("./fixtures/aes-non-ascii-garbage-padding.p12", import.meta.url)));
    expect(opensslInfo(p12, "contraseña-ñ")).toMatch(/AES-256-CBC/i);
    const contents = readPkcs12(p12, "contraseña-ñ");
    expect(contents).toMatchObject({
      subject: "CN=Loop SRL, SERIALNUMBER=RNC-131880681, O=Loop SRL, C=DO",
      certificateSerial: "131880681",
    });
    expect(contents.pkcs8.length).toBeGreaterThan(1000);
  });
});

describe("readPkcs12 refuses, with a distinct code", () => {
  const cases: Array<[Pkcs12ErrorCode, string, () => Uint8Array, string]> = [
    ["wrong_password", "AES file", () => opensslP12(id, "right", "aes"), "wrong"],
    ["wrong_password", "legacy file", () => opensslP12(id, "right", "legacy-rc2"), "wrong"],
    ["wrong_password", "node-forge file", () => forgeP12(id, "right"), "wrong"],
    ["wrong_password", "empty password", () => opensslP12(id, "right", "aes"), ""],
    ["not_rsa", "an EC P-256 key", () => opensslEcP12("x"), "x"],
    ["no_certificate", "a key without its certificate", () => opensslKeyOnlyP12(id, "x"), "x"],
    ["no_private_key", "a certificate without key", () => opensslCertOnlyP12(id, "x"), "x"],
    [
      "unreadable_key",
      "an RSA key bag whose RSAPrivateKey is malformed",
      () => pfxWithBags([malformedRsaKeyBag(), certificateBag(id.certificateDer)]),
      "x",
    ],
    [
      "unsupported",
      "a key encrypted with a cipher node-forge lacks (Camellia)",
      () => pfxWithBags([unknownCipherKeyBag(), certificateBag(id.certificateDer)]),
      "x",
    ],
    [
      "no_private_key",
      "a hand-built file with only a certificate",
      () => pfxWithBags([certificateBag(id.certificateDer)]),
      "x",
    ],
    ["not_pkcs12", "a bare certificate", () => id.certificateDer, "x"],
    ["not_pkcs12", "random bytes", () => crypto.getRandomValues(new Uint8Array(600)), "x"],
    ["not_pkcs12", "empty input", () => new Uint8Array(0), "x"],
    ["not_pkcs12", "a PEM text file", () => new TextEncoder().encode(id.certificatePem), "x"],
  ];
  it.each(cases)("%s: %s", (code, _name, make, password) => {
    let error: unknown;
    try {
      readPkcs12(make(), password);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Pkcs12Error);
    expect((error as Pkcs12Error).code).toBe(code);
    // An RSA key is never reported as "not RSA".
    if (code !== "not_rsa") expect((error as Pkcs12Error).message).not.toMatch(/not RSA/);
  });
});

describe("the key at rest", () => {
  const secret = new Uint8Array(32).map((_, i) => i * 7 + 1);

  it("round-trips, with a fresh IV each time, and imports as a non-extractable signing key", async () => {
    const master = await importMasterKey(secret);
    const a = await encryptPkcs8(id.pkcs8, master, "tenant:131880738");
    const b = await encryptPkcs8(id.pkcs8, master, "tenant:131880738");
    expect(a[0]).toBe(1);
    expect(a.length).toBe(1 + 12 + id.pkcs8.length + 16);
    expect(a.slice(1, 13)).not.toEqual(b.slice(1, 13));
    expect(await decryptPkcs8(a, master, "tenant:131880738")).toEqual(id.pkcs8);
    const key = await importSigningKey(await decryptPkcs8(b, master, "tenant:131880738"));
    expect(key).toMatchObject({
      type: "private",
      extractable: false,
      usages: ["sign"],
      algorithm: { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } },
    });
    await expect(crypto.subtle.exportKey("pkcs8", key)).rejects.toThrow();
    expect((await verifyXml(await signEcfXml("<ECF><A>1</A></ECF>", key, id.certificateDer))).ok).toBe(true);
  });

  it("accepts the master secret as base64 (a Worker secret) and refuses the wrong size", async () => {
    const fromText = await importMasterKey(Buffer.from(secret).toString("base64"));
    const sealed = await encryptPkcs8(id.pkcs8, await importMasterKey(secret));
    expect(await decryptPkcs8(sealed, fromText)).toEqual(id.pkcs8);
    await expect(importMasterKey(new Uint8Array(16))).rejects.toMatchObject({ code: "bad_master_key" });
    await expect(importMasterKey("not base64!")).rejects.toMatchObject({ code: "bad_master_key" });
  });

  const tamper: Array<[string, (s: Uint8Array) => Uint8Array, string, string]> = [
    ["another master key", (s) => s, "other-key", "decrypt_failed"],
    ["another context (tenant)", (s) => s, "other-context", "decrypt_failed"],
    ["a flipped ciphertext bit", (s) => s.map((v, i) => (i === 40 ? v ^ 1 : v)), "", "decrypt_failed"],
    ["a flipped IV bit", (s) => s.map((v, i) => (i === 3 ? v ^ 1 : v)), "", "decrypt_failed"],
    ["a flipped tag bit", (s) => s.map((v, i) => (i === s.length - 1 ? v ^ 1 : v)), "", "decrypt_failed"],
    ["an unknown version", (s) => s.map((v, i) => (i === 0 ? 2 : v)), "", "unsupported_version"],
    ["truncated bytes", (s) => s.slice(0, 20), "", "malformed"],
    ["nothing", () => new Uint8Array(0), "", "malformed"],
  ];
  it.each(tamper)("refuses %s", async (_name, change, variant, code) => {
    const master = await importMasterKey(secret);
    const sealed = change(await encryptPkcs8(id.pkcs8, master, "tenant:1"));
    const key = variant === "other-key" ? await importMasterKey(new Uint8Array(32).fill(9)) : master;
    const context = variant === "other-context" ? "tenant:2" : "tenant:1";
    const error = await decryptPkcs8(sealed, key, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyAtRestError);
    expect((error as KeyAtRestError).code).toBe(code);
  });
});
