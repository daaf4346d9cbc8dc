import { env } from "cloudflare:workers";
import { fromBase64, signEcfXml, verifyXml } from "@ecf/shared";
import { describe, expect, inject, it } from "vitest";
import { signingKeyFor, certificateDerOf } from "../src/certificates/vault.ts";
import { call } from "./support/http.ts";
import { authed, companyWithToken } from "./support/accounts.ts";

const fixtures = inject("certificates");
const bytes = (b64: string) => fromBase64(b64)!;

function upload(token: string, file: Uint8Array, password: string, name = "firma.p12") {
  const form = new FormData();
  form.set("file", new File([new Uint8Array(file)], name, { type: "application/x-pkcs12" }));
  form.set("password", password);
  return call("/company/certificate", { method: "PUT", headers: authed(token), body: form });
}

describe("PUT /company/certificate", () => {
  it.each([
    ["legacy RC2/3DES (openssl -legacy)", "legacyP12"],
    ["legacy 3DES (node-forge)", "forgeP12"],
    ["modern AES-256", "modernP12"],
  ] as const)("stores a %s certificate, encrypted, and the profile shows it", async (_label, fixture) => {
    const { company, token } = await companyWithToken();
    const res = await upload(token, bytes(fixtures[fixture]), fixtures.password, "demo-firma.p12");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({ name: "demo-firma.p12", notAfter: "2030-01-01T00:00:00.000Z" });
    expect(body.subject).toContain("DEMO COMERCIAL SRL");
    expect(body.serialNumber).toContain("131880681");

    const row = await env.DB.prepare(
      "SELECT certificate_key_encrypted AS sealed, certificate_der AS der FROM companies WHERE id = ?1",
    )
      .bind(company.id)
      .first<{ sealed: string; der: string }>();
    // The clear PKCS#8 never reaches D1.
    expect(row!.sealed).not.toContain(fixtures.pkcs8.slice(20, 60));
    const key = await signingKeyFor(row!.sealed, env.MASTER_KEY, company.id);
    expect(key.extractable).toBe(false);
    const signed = await signEcfXml(
      "<ECF><Encabezado><Version>1.0</Version></Encabezado></ECF>",
      key,
      certificateDerOf(row!.der, company.id),
    );
    expect((await verifyXml(signed)).ok).toBe(true);
    // Decoded once per issuer and isolate; another certificate for the issuer is decoded anew.
    expect(certificateDerOf(row!.der, company.id)).toBe(certificateDerOf(row!.der, company.id));
    expect([...certificateDerOf(btoa("another"), company.id)]).toEqual([...new TextEncoder().encode("another")]);
    expect([...certificateDerOf(row!.der, company.id)]).toEqual([
      ...Uint8Array.from(atob(row!.der), (ch) => ch.charCodeAt(0)),
    ]);

    const profile = (await (await call("/company/me", { headers: authed(token) })).json()) as Record<string, unknown>;
    expect(profile).toMatchObject({
      signatureName: "demo-firma.p12",
      signatureExpirationDate: "2030-01-01T00:00:00.000Z",
    });
  });

  it("a sealed key does not open for another company", async () => {
    const a = await companyWithToken();
    await upload(a.token, bytes(fixtures.legacyP12), fixtures.password);
    const row = await env.DB.prepare("SELECT certificate_key_encrypted AS sealed FROM companies WHERE id = ?1")
      .bind(a.company.id)
      .first<{ sealed: string }>();
    await expect(signingKeyFor(row!.sealed, env.MASTER_KEY, "another-company")).rejects.toThrow();
  });

  it.each([
    ["a wrong password", "legacyP12", "not-the-password", "wrong_password", "/password"],
    ["an expired certificate", "expiredP12", undefined, "certificate_expired", "/file"],
    ["a non-RSA key", "ecP12", undefined, "not_rsa", "/file"],
    ["a file that is not a certificate", "pkcs8", undefined, "not_pkcs12", "/file"],
  ] as const)("refuses %s with a clear 400", async (_label, fixture, password, code, path) => {
    const { token } = await companyWithToken();
    const res = await upload(token, bytes(fixtures[fixture]), password ?? fixtures.password);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { code: string; path: string }[]; detail: string };
    expect(body.errors[0]).toMatchObject({ code, path });
    expect(body.detail.length).toBeGreaterThan(10);
  });

  it("refuses a request without a file", async () => {
    const { token } = await companyWithToken();
    const form = new FormData();
    form.set("password", "x");
    const res = await call("/company/certificate", { method: "PUT", headers: authed(token), body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/file");
  });
});
