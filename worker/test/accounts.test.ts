import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../src/app.ts";
import { SignJWT, decodeJwt } from "jose";
import { describe, expect, inject, it } from "vitest";
import { call } from "./support/http.ts";
import { companyById, keyWithCompany } from "../src/db/companies.ts";
import { verifyToken } from "../src/auth/jwt.ts";
import {
  certificateBag,
  malformedRsaKeyBag,
  pfxWithBags,
  unknownCipherKeyBag,
} from "@ecf/shared/test-support/pkcs12-builder";
import { admin, authed, companyWithToken, createCompany, createKey, login, tokenFor } from "./support/accounts.ts";
import { allocate, auditRows, setInvoicesThisMonth } from "./support/ledger.ts";
import { until } from "./support/until.ts";
import { forgetKeyLookups, KEY_LOOKUP_REUSE_MS } from "../src/db/key-lookups.ts";

const problem = async (res: Response) => {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as {
    code: string;
    detail: string;
    status: number;
    errors: { path: string; code: string }[];
    [k: string]: unknown;
  };
};
const me = (token: string, headers: Record<string, string> = {}) =>
  call("/company/me", { headers: authed(token, headers) });

describe("POST /login", () => {
  it("exchanges a key and secret for an HS256 token that expires in 24 hours", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    expect(credentials.apiKey).toMatch(/^ecf_test_/);
    expect(credentials.keyId).toMatch(/^key_test_/);
    const res = await login(credentials);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string };
    expect(Object.keys(body)).toEqual(["token"]);
    const claims = decodeJwt(body.token);
    expect(claims.sub).toBe(credentials.keyId);
    expect(claims).toMatchObject({ own: "company", oid: company.id, knd: "test" });
    expect(claims.exp! - claims.iat!).toBe(24 * 60 * 60);
  });

  it("answers an unknown key and a wrong secret with the same 401 body", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined, instance: undefined });
    const wrongSecret = await login(
      { apiKey: credentials.apiKey, apiSecret: "nope" },
      { "CF-Connecting-IP": "10.0.0.1" },
    );
    const unknownKey = await login(
      { apiKey: "ecf_test_doesnotexist", apiSecret: credentials.apiSecret },
      { "CF-Connecting-IP": "10.0.0.1" },
    );
    expect(wrongSecret.status).toBe(401);
    expect(unknownKey.status).toBe(401);
    expect(strip(await problem(wrongSecret))).toEqual(strip(await problem(unknownKey)));
  });

  it.each([
    ["not JSON", "{apiKey:", "malformed_json"],
    ["missing secret", JSON.stringify({ apiKey: "x" }), "validation_failed"],
    ["wrong types", JSON.stringify({ apiKey: 1, apiSecret: [] }), "validation_failed"],
  ])("a malformed body (%s) is a 400 problem", async (_label, body, code) => {
    const res = await call("/login", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe(code);
  });

  it("throttles a key from the failing address only: the right secret from elsewhere still logs in", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    const attacker = { "CF-Connecting-IP": "10.1.0.66" };
    for (let i = 0; i < 5; i++)
      expect((await login({ apiKey: credentials.apiKey, apiSecret: `bad-${i}` }, attacker)).status).toBe(401);
    const refused = await login(credentials, attacker);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await problem(refused)).code).toBe("too_many_requests");
    // Ten more failures from the attacker change nothing for the owner at another address.
    for (let i = 0; i < 10; i++) await login({ apiKey: credentials.apiKey, apiSecret: `worse-${i}` }, attacker);
    expect((await login(credentials, { "CF-Connecting-IP": "10.1.0.99" })).status).toBe(200);
  });

  it("failures spread over many addresses never lock out the right secret", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    for (let i = 0; i < 12; i++) {
      expect(
        (await login({ apiKey: credentials.apiKey, apiSecret: `bad-${i}` }, { "CF-Connecting-IP": `10.3.0.${i}` }))
          .status,
      ).toBe(401);
    }
    expect((await login(credentials, { "CF-Connecting-IP": "10.3.0.200" })).status).toBe(200);
  });

  it("without a trusted address, others' failures answer only wrong secrets with 429", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    const untrusted = { ...env, BEHIND_CLOUDFLARE: "false" } as Env;
    const loginAt = (body: object, ip: string) =>
      createApp().fetch(
        new Request("http://ecf.test/login", {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip },
          body: JSON.stringify(body),
        }) as any,
        untrusted,
        createExecutionContext(),
      );
    for (let i = 0; i < 5; i++)
      expect((await loginAt({ apiKey: credentials.apiKey, apiSecret: `bad-${i}` }, `10.4.0.${i}`)).status).toBe(401);
    // The spoofable header is ignored: a "new" address does not reset the key's failures…
    expect((await loginAt({ apiKey: credentials.apiKey, apiSecret: "bad-again" }, "10.4.0.77")).status).toBe(429);
    // …and the right secret still wins over them.
    expect((await loginAt(credentials, "10.4.0.1")).status).toBe(200);
  });

  it("throttles a client address that tries many keys", async () => {
    const ip = "10.2.0.7";
    for (let i = 0; i < 30; i++)
      await login({ apiKey: `ecf_test_guess${i}`, apiSecret: "x" }, { "CF-Connecting-IP": ip });
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    expect((await login(credentials, { "CF-Connecting-IP": ip })).status).toBe(429);
    expect((await login(credentials, { "CF-Connecting-IP": "10.2.0.8" })).status).toBe(200);
  });
});

describe("bearer tokens", () => {
  const secret = () => new TextEncoder().encode(env.JWT_SECRET);
  const claimsFor = (keyId: string, ownerId: string) => ({
    sub: keyId,
    own: "company",
    oid: ownerId,
    knd: "test",
    iss: "ecf-edge",
  });

  it("every failure mode is a 401 problem", async () => {
    const { company, credentials, token } = await companyWithToken();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT(claimsFor(credentials.keyId, company.id))
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(now - 90_000)
      .setExpirationTime(now - 3_600)
      .sign(secret());
    const hs512 = await new SignJWT(claimsFor(credentials.keyId, company.id))
      .setProtectedHeader({ alg: "HS512" })
      .setIssuedAt(now)
      .setExpirationTime(now + 3_600)
      .sign(secret());
    const foreign = await new SignJWT(claimsFor(credentials.keyId, company.id))
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(now)
      .setExpirationTime(now + 3_600)
      .sign(new TextEncoder().encode("another-secret-0123456789abcdef"));
    const noExpiry = await new SignJWT(claimsFor(credentials.keyId, company.id))
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(now)
      .sign(secret());
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claimsFor(credentials.keyId, company.id), iat: now, exp: now + 3600 })}.`;
    const [h, p, s] = token.split(".");
    const tamperedPayload = `${h}.${b64({ ...decodeJwt(token), oid: "someone-else" })}.${s}`;
    const tamperedSignature = `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith("AA") ? "BB" : "AA"}`;
    // The genuine token first: its verification is remembered, which must help no altered copy.
    expect((await me(token)).status).toBe(200);
    const cases: [string, Record<string, string>][] = [
      ["missing", {}],
      ["not bearer", { Authorization: `Basic ${token}` }],
      ["garbage", { Authorization: "Bearer not-a-jwt" }],
      ["expired", { Authorization: `Bearer ${expired}` }],
      ["no exp (would never expire)", { Authorization: `Bearer ${noExpiry}` }],
      ["other algorithm", { Authorization: `Bearer ${hs512}` }],
      ["other secret", { Authorization: `Bearer ${foreign}` }],
      ["alg none", { Authorization: `Bearer ${none}` }],
      ["tampered payload", { Authorization: `Bearer ${tamperedPayload}` }],
      ["tampered signature", { Authorization: `Bearer ${tamperedSignature}` }],
    ];
    for (const [label, headers] of cases) {
      const res = await call("/company/me", { headers });
      expect(res.status, label).toBe(401);
      expect((await problem(res)).code, label).toBe("unauthorized");
    }
    expect((await me(token)).status).toBe(200);
  });

  it("a token whose signature was checked before is still refused once it expires", async () => {
    const { token } = await companyWithToken();
    const claims = await verifyToken(token, env.JWT_SECRET);
    expect(claims).toMatchObject({ ownerType: "company", kind: "test" });
    const { exp } = decodeJwt(token);
    expect(await verifyToken(token, env.JWT_SECRET, exp! * 1000 - 1)).toEqual(claims);
    expect(await verifyToken(token, env.JWT_SECRET, exp! * 1000)).toBe("expired");
    // And with another secret, nothing remembered under the first one counts.
    expect(await verifyToken(token, "another-secret-0123456789abcdef")).toBe("invalid");
  });

  it("revoking a key ends its tokens at once; rotating gives a working replacement", async () => {
    const { credentials, token } = await companyWithToken();
    expect((await me(token)).status).toBe(200);
    const rotated = await admin("POST", `/admin/keys/${credentials.keyId}/rotate`);
    expect((await me(token)).status).toBe(401);
    expect((await login(credentials)).status).toBe(401);
    const fresh = await tokenFor({ keyId: rotated.id, apiKey: rotated.apiKey, apiSecret: rotated.apiSecret });
    expect((await me(fresh)).status).toBe(200);
    await admin("POST", `/admin/keys/${rotated.id}/revoke`);
    expect((await me(fresh)).status).toBe(401);
  });
});

describe("the key lookup of every request", () => {
  it("reads a company key's revocation and its company in one statement, the company exactly as drizzle reads it", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    const read = await keyWithCompany(env.DB, credentials.keyId);
    expect(read).toEqual({ revokedAt: null, company: await companyById(env, company.id), subscribedEvents: [] });
    expect(read!.company!.isActive).toBe(true); // stored as 1: mapped as drizzle maps it
    const partner = await admin("POST", "/admin/partners", { name: "Casa de Software SRL" });
    expect(await keyWithCompany(env.DB, (await createKey("partner", partner.id)).keyId)).toEqual({
      revokedAt: null,
      company: null,
      subscribedEvents: [],
    });
    await admin("POST", `/admin/keys/${credentials.keyId}/revoke`);
    expect((await keyWithCompany(env.DB, credentials.keyId))!.revokedAt).toMatch(/^\d{4}-/);
    expect(await keyWithCompany(env.DB, "key_test_missing")).toBeUndefined();
  });

  it("is read from D1 at most once a second per key and isolate; a change through the worker is seen at once, one past it within the second", async () => {
    const { credentials, token } = await companyWithToken();
    expect((await me(token)).status).toBe(200);
    // Revoked past the worker: this isolate answers from its lookup for the rest of
    // the second it read it in, then reads D1 again.
    const past = Date.now();
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2")
      .bind(new Date().toISOString(), credentials.keyId)
      .run();
    const before = await me(token);
    if (Date.now() - past < KEY_LOOKUP_REUSE_MS / 2) expect(before.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, KEY_LOOKUP_REUSE_MS));
    expect((await me(token)).status).toBe(401);
    // Through the worker (the administration API), at once.
    const other = await companyWithToken();
    expect((await me(other.token)).status).toBe(200);
    await admin("PATCH", `/admin/companies/${other.company.id}`, { isActive: false });
    expect((await me(other.token)).status).toBe(403);
  });

  it("reads with it the events the company's webhook endpoints and its partners' are subscribed to, disabled ones left out", async () => {
    const company = await createCompany();
    const credentials = await createKey("company", company.id);
    const subscribed = async () => [...(await keyWithCompany(env.DB, credentials.keyId))!.subscribedEvents].sort();
    const register = async (token: string, events: string[]) => {
      const res = await call("/webhooks", {
        method: "POST",
        headers: authed(token, { "Content-Type": "application/json" }),
        body: JSON.stringify({ url: "https://hooks.example.com/ecf", events }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    const partnerToken = async (serves: string[]) => {
      const partner = await admin<{ id: string }>("POST", "/admin/partners", {
        name: `Integrador ${crypto.randomUUID()}`,
      });
      for (const companyId of serves) await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId });
      return tokenFor(await createKey("partner", partner.id));
    };
    expect(await subscribed()).toEqual([]);
    await register(await tokenFor(credentials), ["receipt.accepted", "receipt.rejected"]);
    await register(await partnerToken([company.id]), ["receipt.accepted", "receipt.contingency"]);
    // A partner serving other issuers only is not heard.
    await register(await partnerToken([(await createCompany()).id]), ["purchase.received"]);
    expect(await subscribed()).toEqual(["receipt.accepted", "receipt.contingency", "receipt.rejected"]);
    await env.DB.prepare("UPDATE webhook_endpoints SET disabled_at = ?1 WHERE owner_type = 'company' AND owner_id = ?2")
      .bind(new Date().toISOString(), company.id)
      .run();
    forgetKeyLookups(); // (a write past the worker)
    expect(await subscribed()).toEqual(["receipt.accepted", "receipt.contingency"]);
  });
});

describe("tenants", () => {
  async function partnerServing(...companyIds: string[]) {
    const partner = await admin("POST", "/admin/partners", { name: "Software House SRL" });
    for (const companyId of companyIds) await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId });
    return tokenFor(await createKey("partner", partner.id));
  }

  it("a partner acts for the issuers it serves, named in X-RNC-Emisor", async () => {
    const [a, b] = [await createCompany({ name: "A SRL" }), await createCompany({ name: "B SRL" })];
    const token = await partnerServing(a.id, b.id);
    for (const company of [a, b]) {
      const res = await me(token, { "X-RNC-Emisor": company.rnc });
      expect(res.status).toBe(200);
      expect((await res.json()) as { registryNumber: string; name: string }).toMatchObject({
        registryNumber: company.rnc,
        name: company.name,
      });
    }
  });

  it("a partner must name the issuer (400) and only one it serves (403)", async () => {
    const served = await createCompany();
    const other = await createCompany();
    const token = await partnerServing(served.id);
    const missing = await me(token);
    expect(missing.status).toBe(400);
    expect((await problem(missing)).errors[0]?.path).toBe("/headers/X-RNC-Emisor");
    expect((await me(token, { "X-RNC-Emisor": other.rnc })).status).toBe(403);
    expect((await me(token, { "X-RNC-Emisor": "999999999" })).status).toBe(403);
  });

  it("no protected route lets a partner or a company reach an issuer it does not serve", async () => {
    const victim = await createCompany({ name: "Victim SRL" });
    const served = await createCompany();
    const partnerToken = await partnerServing(served.id);
    const { token: companyToken } = await companyWithToken();
    const routes: [string, string, BodyInit | undefined, Record<string, string>][] = [
      ["GET", "/company/me", undefined, {}],
      ["GET", "/company/sequences", undefined, {}],
      [
        "PUT",
        "/company/sequences/31",
        JSON.stringify({ rangeFrom: 1, rangeTo: 10, expiresOn: "2030-12-31" }),
        { "Content-Type": "application/json" },
      ],
      [
        "PUT",
        "/company/certificate",
        (() => {
          const f = new FormData();
          f.set("file", new File([new Uint8Array([1, 2, 3])], "x.p12"));
          f.set("password", "x");
          return f;
        })(),
        {},
      ],
    ];
    for (const token of [partnerToken, companyToken]) {
      for (const [method, path, body, headers] of routes) {
        const res = await call(path, {
          method,
          body,
          headers: authed(token, { ...headers, "X-RNC-Emisor": victim.rnc }),
        });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    }
    const sequences = (await (await call("/company/sequences", { headers: authed(companyToken) })).json()) as {
      sequences: unknown[];
    };
    expect(sequences.sequences).toEqual([]);
  });

  it("a company may name its own RNC", async () => {
    const { company, token } = await companyWithToken();
    expect((await me(token, { "X-RNC-Emisor": company.rnc })).status).toBe(200);
  });

  it("test keys serve testecf and certecf, live keys only ecf", async () => {
    for (const [environment, kind, status] of [
      ["testecf", "test", 200],
      ["certecf", "test", 200],
      ["ecf", "test", 403],
      ["ecf", "live", 200],
      ["testecf", "live", 403],
      ["certecf", "live", 403],
    ] as const) {
      const company = await createCompany({ dgiiServer: environment });
      const token = await tokenFor(await createKey("company", company.id, kind));
      const res = await me(token);
      expect(res.status, `${kind} key on ${environment}`).toBe(status);
      if (status === 403)
        expect((await problem(res)).detail).toMatch(kind === "test" ? /test key.*production/ : /live key/);
    }
  });

  it("an inactive issuer is refused", async () => {
    const { company, token } = await companyWithToken();
    await admin("PATCH", `/admin/companies/${company.id}`, { isActive: false });
    expect((await me(token)).status).toBe(403);
  });
});

describe("GET /company/me", () => {
  it("has exactly the profile fields", async () => {
    const { company, token } = await companyWithToken({ invoiceLimitPerMonth: 50 });
    const res = await me(token);
    const body = (await res.json()) as Record<string, unknown>;
    // The interface's profile, under its own names only (never a second name for a fact), and the
    // service's additions: its three settings and the warnings.
    const profile = [
      "id",
      "name",
      "registryNumber",
      "isActive",
      "dgiiServer",
      "invoicesCountCurrentMonth",
      "invoiceLimitPerMonth",
      "signatureName",
      "signatureExpirationDate",
    ];
    expect(Object.keys(body).sort()).toEqual(
      [...profile, "totalsPolicy", "creditoFiscalApproval", "creditoFiscalE32", "warnings"].sort(),
    );
    expect(body).toMatchObject({
      id: company.id,
      name: "Prueba SRL",
      registryNumber: company.rnc,
      isActive: true,
      dgiiServer: "testecf",
      totalsPolicy: "strict",
      creditoFiscalApproval: "at_once",
      creditoFiscalE32: "none",
      invoicesCountCurrentMonth: 0,
      invoiceLimitPerMonth: 50,
      signatureName: null,
      signatureExpirationDate: null,
    });
    // The same names as the administration API's view of the issuer.
    const adminView = await admin<Record<string, unknown>>("GET", `/admin/companies?registryNumber=${company.rnc}`);
    const listed = (adminView.companies as Record<string, unknown>[])[0]!;
    for (const key of [
      "name",
      "registryNumber",
      "dgiiServer",
      "totalsPolicy",
      "invoiceLimitPerMonth",
      "isActive",
      "signatureExpirationDate",
    ])
      expect(body[key], key).toEqual(listed[key]);
    expect((body.warnings as { code: string }[]).map((w) => w.code)).toEqual(["certificate_missing"]);
  });

  it("warns about a certificate about to expire and a quota above 90 %", async () => {
    const { company, token } = await companyWithToken({ invoiceLimitPerMonth: 10 });
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await env.DB.prepare(
      "UPDATE companies SET certificate_file_name = 'firma.p12', certificate_not_after = ?1 WHERE id = ?2",
    )
      .bind(inTenDays, company.id)
      .run();
    forgetKeyLookups(); // (a write past the worker)
    await setInvoicesThisMonth(company.id, 10);
    const body = (await (await me(token)).json()) as {
      warnings: { code: string }[];
      invoicesCountCurrentMonth: number;
      signatureName: string;
      signatureExpirationDate: string;
    };
    expect(body.invoicesCountCurrentMonth).toBe(10);
    expect(body.signatureName).toBe("firma.p12");
    expect(body.signatureExpirationDate).toBe(inTenDays);
    expect(body.warnings.map((w) => w.code).sort()).toEqual(["certificate_expiring", "quota_reached"]);
  });
});

describe("GET /company/me warnings", () => {
  const warningsOf = async (token: string) =>
    ((await (await me(token)).json()) as { warnings: { code: string; message: string }[] }).warnings;

  it.each([
    [20, 18, []], // exactly 90 %: not above it
    [20, 19, ["quota_near_limit"]],
    [1000, 901, ["quota_near_limit"]],
    [1000, 999, ["quota_near_limit"]],
    [20, 20, ["quota_reached"]],
  ])("limit %i, %i used → %j", async (limit, used, expected) => {
    const { company, token } = await companyWithToken({ invoiceLimitPerMonth: limit });
    await env.DB.prepare(
      "UPDATE companies SET certificate_file_name = 'firma.p12', certificate_not_after = '2099-01-01T00:00:00.000Z' WHERE id = ?1",
    )
      .bind(company.id)
      .run();
    forgetKeyLookups(); // (a write past the worker)
    await setInvoicesThisMonth(company.id, used);
    const warnings = await warningsOf(token);
    expect(warnings.map((w) => w.code)).toEqual(expected);
    if (expected[0] === "quota_near_limit")
      expect(warnings[0]!.message).toBe(`${used} of ${limit} receipts used this month.`);
  });

  it("certificate_expired once the certificate's notAfter has passed, with the date", async () => {
    const { company, token } = await companyWithToken();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    await env.DB.prepare(
      "UPDATE companies SET certificate_file_name = 'firma.p12', certificate_not_after = ?1 WHERE id = ?2",
    )
      .bind(yesterday, company.id)
      .run();
    forgetKeyLookups(); // (a write past the worker)
    const warnings = await warningsOf(token);
    expect(warnings.map((w) => w.code)).toEqual(["certificate_expired"]);
    expect(warnings[0]!.message).toContain(yesterday);
  });
});

describe("PUT /company/certificate refusals", () => {
  const certificateDer = () => Uint8Array.from(atob(inject("certificates").certificateDer), (ch) => ch.charCodeAt(0));
  it.each([
    ["no_private_key", () => pfxWithBags([certificateBag(certificateDer())]), /no private key/],
    [
      "unsupported",
      () => pfxWithBags([unknownCipherKeyBag(), certificateBag(certificateDer())]),
      /encryption this service cannot open/,
    ],
    [
      "unreadable_key",
      () => pfxWithBags([malformedRsaKeyBag(), certificateBag(certificateDer())]),
      /RSA private key is damaged/,
    ],
  ] as const)("%s is a 400 with its own message", async (code, make, message) => {
    const { company, token } = await companyWithToken();
    const form = new FormData();
    form.set("file", new File([make()], "firma.p12"));
    form.set("password", "x");
    const res = await call("/company/certificate", { method: "PUT", headers: authed(token), body: form });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("bad_request");
    expect(body.errors).toEqual([{ path: "/file", code, message: expect.stringMatching(message) }]);
    expect(body.detail).toMatch(message);
    expect(body.detail).not.toMatch(/not RSA|not a PKCS#12/);
    const row = await env.DB.prepare("SELECT certificate_der FROM companies WHERE id = ?1").bind(company.id).first();
    expect(row).toEqual({ certificate_der: null });
  });
});

describe("e-NCF sequences", () => {
  it("registers and lists a range", async () => {
    const { token } = await companyWithToken();
    const put = await call("/company/sequences/31", {
      method: "PUT",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify({ rangeFrom: 1, rangeTo: 500, expiresOn: "2030-12-31" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({
      tipoeCF: "31",
      nextEncf: "E310000000001",
      remaining: 500,
      expiresOn: "2030-12-31",
    });
    const list = (await (await call("/company/sequences", { headers: authed(token) })).json()) as {
      sequences: { tipoeCF: string }[];
    };
    expect(list.sequences.map((s) => s.tipoeCF)).toEqual(["31"]);
  });

  it.each([
    ["unknown type", "30", { rangeFrom: 1, rangeTo: 2, expiresOn: "2030-01-01" }, "/tipo"],
    ["inverted range", "31", { rangeFrom: 10, rangeTo: 2, expiresOn: "2030-01-01" }, "/rangeTo"],
    ["bad date", "31", { rangeFrom: 1, rangeTo: 2, expiresOn: "2030-02-30" }, "/expiresOn"],
    ["too many digits", "31", { rangeFrom: 1, rangeTo: 99_999_999_999, expiresOn: "2030-01-01" }, "/rangeTo"],
  ])("refuses a bad range (%s)", async (_label, tipo, body, path) => {
    const { token } = await companyWithToken();
    const res = await call(`/company/sequences/${tipo}`, {
      method: "PUT",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect((await problem(res)).errors.map((e) => e.path)).toContain(path);
  });

  it("200 parallel allocations give 200 distinct consecutive numbers", async () => {
    const company = await createCompany();
    await admin("PUT", `/admin/companies/${company.id}/sequences/32`, {
      rangeFrom: 1001,
      rangeTo: 5000,
      expiresOn: "2030-12-31",
    });
    const now = new Date();
    const results = await Promise.all(Array.from({ length: 200 }, () => allocate(company.id, "32", now)));
    const numbers = results.map((r) => r.number).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(200);
    expect(numbers[0]).toBe(1001);
    expect(numbers[199]).toBe(1200);
    expect(results.find((r) => r.number === 1001)?.encf).toBe("E320000001001");
  });

  it("an exhausted, expired or missing range is a 422 before anything is signed", async () => {
    const company = await createCompany();
    const now = new Date();
    await admin("PUT", `/admin/companies/${company.id}/sequences/31`, {
      rangeFrom: 1,
      rangeTo: 2,
      expiresOn: "2030-12-31",
    });
    await allocate(company.id, "31", now);
    await allocate(company.id, "31", now);
    await expect(allocate(company.id, "31", now)).rejects.toMatchObject({
      code: "unprocessable",
      init: { errors: [{ code: "sequence_exhausted" }] },
    });
    await admin("PUT", `/admin/companies/${company.id}/sequences/33`, {
      rangeFrom: 1,
      rangeTo: 100,
      expiresOn: "2020-01-01",
    });
    await expect(allocate(company.id, "33", now)).rejects.toMatchObject({
      init: { errors: [{ code: "sequence_expired" }] },
    });
    await expect(allocate(company.id, "34", now)).rejects.toMatchObject({
      init: { errors: [{ code: "sequence_missing" }] },
    });
  });

  it("re-registering a range never hands out a used number again", async () => {
    const company = await createCompany();
    await admin("PUT", `/admin/companies/${company.id}/sequences/31`, {
      rangeFrom: 1,
      rangeTo: 10,
      expiresOn: "2030-12-31",
    });
    for (let i = 0; i < 3; i++) await allocate(company.id, "31");
    const widened = await admin("PUT", `/admin/companies/${company.id}/sequences/31`, {
      rangeFrom: 1,
      rangeTo: 20,
      expiresOn: "2031-12-31",
    });
    expect(widened.nextEncf).toBe("E310000000004");
  });
});

describe("quota", () => {
  it("refuses with 429 quota_exceeded and the limit once the month is full", async () => {
    const company = await createCompany({ invoiceLimitPerMonth: 3 });
    await admin("PUT", `/admin/companies/${company.id}/sequences/31`, {
      rangeFrom: 1,
      rangeTo: 100,
      expiresOn: "2030-12-31",
    });
    const now = new Date();
    await Promise.all([1, 2, 3].map(() => allocate(company.id, "31", now, 3)));
    const refusal = await allocate(company.id, "31", now, 3).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: "quota_exceeded", status: 429, init: { extensions: { limit: 3 } } });
    // Refused before a number was taken: the fourth number is still free.
    expect((await allocate(company.id, "31", now)).encf).toBe("E310000000004");
  });
});

describe("audit log", () => {
  it("records refused requests against the issuer", async () => {
    const { company, token } = await companyWithToken();
    const res = await call("/company/sequences/31", {
      method: "PUT",
      headers: authed(token, { "Content-Type": "application/json", "X-Request-Id": "audit-req-1" }),
      body: "{",
    });
    expect(res.status).toBe(400);
    // The audit row is written after the answer leaves (waitUntil): await it.
    let row: Record<string, unknown> | undefined;
    await until(async () => ([row] = await auditRows(company.id, "request_id = 'audit-req-1'")).length > 0);
    expect(row).toMatchObject({
      company_id: company.id,
      code: "malformed_json",
      status: 400,
      action: "PUT /company/sequences/31",
    });
  });
});

describe("administration API", () => {
  it("needs the admin secret", async () => {
    for (const headers of [{}, { Authorization: "Bearer wrong" }] as Record<string, string>[]) {
      const res = await call("/admin/companies", { headers });
      expect(res.status).toBe(401);
    }
  });

  it("changing one field of an issuer leaves the others (no defaults re-applied)", async () => {
    const company = await createCompany({ dgiiServer: "certecf", invoiceLimitPerMonth: 777, tradeName: "Antes" });
    const patched = await admin("PATCH", `/admin/companies/${company.id}`, {
      address: "Calle Duarte 12",
      province: "250000",
      municipality: "250100",
    });
    expect(patched).toMatchObject({
      dgiiServer: "certecf",
      invoiceLimitPerMonth: 777,
      isActive: true,
      tradeName: "Antes",
      address: "Calle Duarte 12",
      province: "250000",
      municipality: "250100",
    });
    const inactive = await admin("PATCH", `/admin/companies/${company.id}`, { isActive: false });
    expect(inactive).toMatchObject({
      dgiiServer: "certecf",
      invoiceLimitPerMonth: 777,
      isActive: false,
      address: "Calle Duarte 12",
    });
    const { companies } = await admin<{ companies: Record<string, unknown>[] }>(
      "GET",
      `/admin/companies?registryNumber=${company.rnc}`,
    );
    expect(companies).toEqual([inactive]);
  });

  it("lists partners by name with the issuers they serve", async () => {
    const [a, b] = [await createCompany(), await createCompany()];
    const name = `Casa ${crypto.randomUUID()}`;
    const partner = await admin("POST", "/admin/partners", { name });
    for (const c of [a, b]) await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId: c.id });
    const { partners } = await admin<{ partners: { id: string; name: string; companyIds: string[] }[] }>(
      "GET",
      `/admin/partners?name=${encodeURIComponent(name)}`,
    );
    expect(partners).toHaveLength(1);
    expect(partners[0]).toMatchObject({ id: partner.id, name });
    expect(partners[0]!.companyIds.sort()).toEqual([a.id, b.id].sort());
  });

  it("lists keys without their hashes", async () => {
    const company = await createCompany();
    await createKey("company", company.id);
    const { keys } = await admin<{ keys: Record<string, unknown>[] }>("GET", `/admin/keys?ownerId=${company.id}`);
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!)).not.toContain("secretHash");
    expect(Object.keys(keys[0]!)).not.toContain("keyHash");
  });
});
