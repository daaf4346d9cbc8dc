// Signing and verification inside workerd: the fast path, xmldsigjs (with xmldom and xpath, no
// native DOM), node-forge opening legacy and AES .p12 files, AES-GCM at rest, and Intl time zones.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import {
  decryptPkcs8,
  ecfToXml,
  encryptPkcs8,
  fechaHoraFirma,
  formatDgiiDateTime as fechaHoraFirmaFixedOffset,
  importMasterKey,
  importSigningKey,
  readPkcs12,
  securityCode,
  signEcfXml,
  signXml,
  timbreForSignedEcf,
  timbreUrl,
  verifyXml,
} from "@ecf/shared";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";

const certificates = inject("certificates");
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe("signing in workerd", () => {
  it("is running in workerd", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  it.each([
    ["legacy RC2/3DES (openssl -legacy)", () => certificates.legacyP12],
    ["3DES (node-forge)", () => certificates.forgeP12],
    ["AES-256/PBKDF2 (openssl 3)", () => certificates.modernP12],
  ])("opens a %s .p12 with node-forge", (_name, p12) => {
    const contents = readPkcs12(fromBase64(p12()), certificates.password);
    expect(contents.certificate).toEqual(fromBase64(certificates.certificateDer));
    expect(contents.holderId).toBe("131880681");
  });

  it("refuses a wrong password and an EC key with their codes", () => {
    expect(() => readPkcs12(fromBase64(certificates.modernP12), "wrong")).toThrow(
      expect.objectContaining({ code: "wrong_password" }),
    );
    expect(() => readPkcs12(fromBase64(certificates.ecP12), certificates.password)).toThrow(
      expect.objectContaining({ code: "not_rsa" }),
    );
  });

  it("seals the key at rest with the MASTER_KEY secret, signs fast, matches xmldsigjs, verifies", async () => {
    const contents = readPkcs12(fromBase64(certificates.legacyP12), certificates.password);
    const master = await importMasterKey(env.MASTER_KEY);
    const sealed = await encryptPkcs8(contents.pkcs8, master, "tenant:131880681");
    const key = await importSigningKey(await decryptPkcs8(sealed, master, "tenant:131880681"));
    expect(key.extractable).toBe(false);

    for (const tipo of ["31", "32", "43", "47"] as const) {
      const xml = ecfToXml(
        makeEcf(tipo, { trickyText: true, fechaHoraFirma: fechaHoraFirma(new Date("2026-05-01T14:00:00Z")) }),
      );
      const fast = await signEcfXml(xml, key, contents.certificate);
      const slow = await signXml(xml, key, contents.certificate);
      expect(field(fast, "DigestValue")).toBe(field(slow, "DigestValue"));
      expect(field(fast, "SignatureValue")).toBe(field(slow, "SignatureValue"));
      expect(fast).toBe(slow);

      const verdict = await verifyXml(fast);
      expect(verdict).toMatchObject({ ok: true, certificate: { holderId: "131880681" } });
      const tampered = fast.replace("<TipoeCF>", "<TipoeCF>9");
      expect(await verifyXml(tampered)).toMatchObject({ ok: false });

      const timbre = timbreForSignedEcf(fast, "certecf");
      const url = timbreUrl(timbre);
      expect(url).toContain(`CodigoSeguridad=${encodeURIComponent(securityCode(fast))}`);
      // The factory's E32 is under DOP 250,000: the short consumer form, without FechaFirma.
      expect(timbre.form).toBe(tipo === "32" ? "consultatimbrefc" : "consultatimbre");
      if (tipo !== "32") expect(url).toContain("FechaFirma=01-05-2026%2010:00:00");
    }
  });

  it("has the America/Santo_Domingo time zone (Intl) and agrees with UTC-4", () => {
    const zone = new Intl.DateTimeFormat("en-US", { timeZone: "America/Santo_Domingo" }).resolvedOptions().timeZone;
    expect(zone).toBe("America/Santo_Domingo");
    for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 0, 1); t += 37 * 3_600_000 + 61_000) {
      expect(fechaHoraFirma(new Date(t))).toBe(fechaHoraFirmaFixedOffset(new Date(t)));
    }
  });
});
