// The owner's settings from a console session (issue 36): the company's own API keys (created once
// shown, listed without secrets, revoked; never by an API key; never another company's) and its
// totals policy (PATCH /company/me).
import { describe, expect, it } from "vitest";
import { authed, companyWithToken, createCompany, login, tokenFor } from "./support/accounts.ts";
import { browse, companyWithOwner, consoleUser } from "./support/console.ts";
import { call } from "./support/http.ts";

type Problem = { code: string; detail: string };
type Created = { id: string; kind: string; ownerType: string; ownerId: string; apiKey: string; apiSecret: string };
type Listed = { keys: Record<string, unknown>[] };

describe("a company's API keys, managed by its owner in the console", () => {
  it("the owner creates a key shown once, lists it without secrets, logs in with it, and revokes it", async () => {
    const { company, owner } = await companyWithOwner();
    const res = await browse(owner, "/company/api-keys", { method: "POST" });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Created;
    expect(created).toMatchObject({ kind: "test", ownerType: "company", ownerId: company.id });
    expect(created.apiKey).toMatch(/^ecf_test_/);
    expect(created.id).toMatch(/^key_test_/);

    const listed = (await (await browse(owner, "/company/api-keys")).json()) as Listed;
    expect(listed.keys).toHaveLength(1);
    expect(listed.keys[0]).toMatchObject({ id: created.id, revokedAt: null, lastUsedAt: null });
    const text = JSON.stringify(listed);
    for (const secret of [created.apiKey, created.apiSecret, "keyHash", "secretHash"])
      expect(text).not.toContain(secret);

    // An ordinary API key: it logs in and acts for the company; the login is recorded.
    const token = await tokenFor({ keyId: created.id, apiKey: created.apiKey, apiSecret: created.apiSecret });
    const me = await call("/company/me", { headers: authed(token) });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { registryNumber: string }).registryNumber).toBe(company.rnc);
    const used = (await (await browse(owner, "/company/api-keys")).json()) as Listed;
    expect(used.keys[0]!.lastUsedAt).toEqual(expect.any(String));

    const revoked = await browse(owner, `/company/api-keys/${created.id}/revoke`, { method: "POST" });
    expect(revoked.status).toBe(200);
    const { revokedAt } = (await revoked.json()) as { revokedAt: string };
    expect((await call("/company/me", { headers: authed(token) })).status).toBe(401);
    expect((await login(created)).status).toBe(401);
    const after = (await (await browse(owner, "/company/api-keys")).json()) as Listed;
    expect(after.keys[0]).toMatchObject({ id: created.id, revokedAt });
  });

  it("a live company's key is live", async () => {
    const company = await createCompany({ dgiiServer: "ecf" });
    const owner = await consoleUser(company.id, "owner");
    const created = (await (await browse(owner, "/company/api-keys", { method: "POST" })).json()) as Created;
    expect(created.kind).toBe("live");
    expect(created.apiKey).toMatch(/^ecf_live_/);
    expect((await login(created)).status).toBe(200);
  });

  it("an API key cannot list, create or revoke keys: console_session_required", async () => {
    const { token, credentials } = await companyWithToken();
    for (const [method, path] of [
      ["GET", "/company/api-keys"],
      ["POST", "/company/api-keys"],
      ["POST", `/company/api-keys/${credentials.keyId}/revoke`],
    ] as const) {
      const res = await call(path, { method, headers: authed(token) });
      expect(res.status, path).toBe(403);
      expect(res.headers.get("Content-Type")).toContain("application/problem+json");
      expect(((await res.json()) as Problem).code).toBe("console_session_required");
    }
    // The key was not revoked by its own token.
    expect((await call("/company/me", { headers: authed(token) })).status).toBe(200);
  });

  it("the accountant and the manager neither see nor make keys", async () => {
    const { company } = await companyWithOwner();
    for (const role of ["accountant", "manager"] as const) {
      const user = await consoleUser(company.id, role);
      for (const method of ["GET", "POST"]) {
        const res = await browse(user, "/company/api-keys", { method });
        expect(res.status, `${role} ${method}`).toBe(403);
        expect(((await res.json()) as Problem).detail).toContain("needs the role owner");
      }
    }
  });

  it("company B's owner never sees nor revokes A's keys", async () => {
    const a = await companyWithOwner();
    const b = await companyWithOwner();
    const created = (await (await browse(a.owner, "/company/api-keys", { method: "POST" })).json()) as Created;
    await browse(b.owner, "/company/api-keys", { method: "POST" });

    const bList = (await (await browse(b.owner, "/company/api-keys")).json()) as Listed;
    expect(bList.keys).toHaveLength(1);
    expect(JSON.stringify(bList)).not.toContain(created.id);
    expect(bList.keys[0]!.ownerId).toBe(b.company.id);

    const revoke = await browse(b.owner, `/company/api-keys/${created.id}/revoke`, { method: "POST" });
    expect(revoke.status).toBe(404);
    // Naming A in X-RNC-Emisor does not make B's owner A's.
    const named = await browse(b.owner, "/company/api-keys", { headers: { "X-RNC-Emisor": a.company.rnc } });
    expect(named.status).toBe(403);
    expect((await login(created)).status).toBe(200);
  });

  it("the administrator's keys and the owner's are the same keys", async () => {
    const { company, owner } = await companyWithOwner();
    const created = (await (await browse(owner, "/company/api-keys", { method: "POST" })).json()) as Created;
    const { admin } = await import("./support/accounts.ts");
    const listed = await admin<Listed>("GET", `/admin/keys?ownerId=${company.id}`);
    expect(listed.keys.map((k) => k.id)).toEqual([created.id]);
    await admin("POST", `/admin/keys/${created.id}/revoke`);
    const seen = (await (await browse(owner, "/company/api-keys")).json()) as Listed;
    expect(seen.keys[0]!.revokedAt).toEqual(expect.any(String));
  });
});

describe("the totals policy, changed by the owner", () => {
  it("PATCH /company/me sets totalsPolicy and GET /company/me reflects it", async () => {
    const { owner } = await companyWithOwner();
    const before = (await (await browse(owner, "/company/me")).json()) as { totalsPolicy: string };
    expect(before.totalsPolicy).toBe("strict");
    const res = await browse(owner, "/company/me", { method: "PATCH", body: { totalsPolicy: "dgii" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { totalsPolicy: string }).totalsPolicy).toBe("dgii");
    const after = (await (await browse(owner, "/company/me")).json()) as { totalsPolicy: string };
    expect(after.totalsPolicy).toBe("dgii");
  });

  it("a wrong policy or a field the issuer cannot change is a 400 problem naming the field", async () => {
    const { owner } = await companyWithOwner();
    const wrong = await browse(owner, "/company/me", { method: "PATCH", body: { totalsPolicy: "loose" } });
    expect(wrong.status).toBe(400);
    const problem = (await wrong.json()) as Problem & { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain("/totalsPolicy");
    const limit = await browse(owner, "/company/me", {
      method: "PATCH",
      body: { totalsPolicy: "dgii", invoiceLimitPerMonth: 1_000_000 },
    });
    expect(limit.status).toBe(400);
    const unchanged = (await (await browse(owner, "/company/me")).json()) as { totalsPolicy: string };
    expect(unchanged.totalsPolicy).toBe("strict");
  });

  it("the accountant may not change it; the company's API key may, and its next request reads it", async () => {
    const { company } = await companyWithOwner();
    const accountant = await consoleUser(company.id, "accountant");
    const refused = await browse(accountant, "/company/me", { method: "PATCH", body: { totalsPolicy: "dgii" } });
    expect(refused.status).toBe(403);
    const { token } = await companyWithToken();
    const patched = await call("/company/me", {
      method: "PATCH",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify({ totalsPolicy: "dgii" }),
    });
    expect(patched.status).toBe(200);
    const me = (await (await call("/company/me", { headers: authed(token) })).json()) as { totalsPolicy: string };
    expect(me.totalsPolicy).toBe("dgii");
  });
});
