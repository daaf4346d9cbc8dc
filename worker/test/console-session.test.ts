// The console's sign-in (issue 36, the console contract): invitation -> accept -> session, the
// cookie's attributes, login and its throttle, CSRF on writes, logout and the session's end.
import { describe, expect, it } from "vitest";
import { createCompany } from "./support/accounts.ts";
import {
  PASSWORD,
  accept,
  adminInvite,
  browse,
  browserOf,
  companyWithOwner,
  consoleLogin,
  consoleUser,
  cookieOf,
  d1,
  freshEmail,
  tokenOfLink,
} from "./support/console.ts";
import { call } from "./support/http.ts";
import { sandboxUrl } from "./support/issuing.ts";
import { sha256Hex } from "../src/crypto/credentials.ts";

type Problem = { code: string; detail: string; errors: { path: string }[] };
const problemOf = async (res: Response) => (await res.json()) as Problem;

const mailTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject: string; text: string }[]).filter(
    (m) => m.to.includes(address),
  );

describe("invitation -> accept -> session", () => {
  it("the admin's invitation is e-mailed with its link; accepting it signs the new owner in", async () => {
    const company = await createCompany({ name: "Ferretería Central SRL" });
    const email = freshEmail("dueno");
    const invited = await adminInvite(company.id, email);
    expect(invited.emailSent).toBe(true);
    expect(invited.link).toMatch(/^http:\/\/ecf\.test\/app\/#\/invitacion\/[A-Za-z0-9_-]{40,}$/);
    const [mail] = await mailTo(email);
    expect(mail?.text).toContain(invited.link);
    expect(mail?.subject).toContain("Ferretería Central SRL");

    const token = tokenOfLink(invited.link);
    const shown = await call(`/console/invitations/${token}`);
    expect(shown.status).toBe(200);
    expect(await problemOf(shown)).toEqual({
      email,
      role: "owner",
      company: { rnc: company.rnc, razonSocial: "Ferretería Central SRL" },
    });

    const accepted = await accept(token, PASSWORD, "Ana Pérez");
    const browser = await browserOf(accepted);
    expect(browser.session).toMatchObject({
      user: { email, name: "Ana Pérez" },
      company: { rnc: company.rnc, razonSocial: "Ferretería Central SRL" },
      role: "owner",
      companies: [{ rnc: company.rnc, razonSocial: "Ferretería Central SRL", role: "owner" }],
    });
    const again = await browse(browser, "/console/session");
    expect(again.status).toBe(200);
    expect(((await again.json()) as { user: { email: string } }).user.email).toBe(email);
    // The session's cookie acts for the company on the API's own routes.
    const me = await browse(browser, "/company/me");
    expect(me.status).toBe(200);
    expect(((await me.json()) as { registryNumber: string }).registryNumber).toBe(company.rnc);
  });

  it("a link serves once; an unknown link is 404, an expired one 410; a short password is a 400", async () => {
    const company = await createCompany();
    const token = tokenOfLink((await adminInvite(company.id, freshEmail())).link);
    const short = await accept(token, "corta");
    expect(short.status).toBe(400);
    expect((await problemOf(short)).errors[0]?.path).toBe("/password");
    expect((await accept(token)).status).toBe(200);
    const reused = await accept(token);
    expect(reused.status).toBe(410);
    expect((await problemOf(reused)).code).toBe("expired");
    expect((await call(`/console/invitations/${token}`)).status).toBe(410);

    expect(
      ((await (await call("/console/invitations/no-such-invitation-token")).json()) as { code: string }).code,
    ).toBe("not_found");
    const old = tokenOfLink((await adminInvite(company.id, freshEmail())).link);
    await d1(
      "UPDATE console_invitations SET expires_at = ? WHERE token_hash = ?",
      "2020-01-01T00:00:00.000Z",
      await sha256Hex(old),
    );
    const late = await accept(old);
    expect(late.status).toBe(410);
    expect((await problemOf(late)).code).toBe("expired");
  });

  it("an existing user gains a second company with its own password, and switches between them", async () => {
    const first = await createCompany({ name: "Primera SRL" });
    const second = await createCompany({ name: "Segunda SRL" });
    const email = freshEmail("socio");
    const browser = await consoleUser(first.id, "owner", email);
    const token = tokenOfLink((await adminInvite(second.id, email, "accountant")).link);
    const wrong = await accept(token, "otra-clave-distinta");
    expect(wrong.status).toBe(401);
    const joined = await browserOf(await accept(token, PASSWORD));
    expect(joined.session.user.id).toBe(browser.session.user.id);
    expect(joined.session.company?.rnc).toBe(second.rnc);
    expect(joined.session.role).toBe("accountant");
    expect(joined.session.companies.map((c) => [c.rnc, c.role]).sort()).toEqual(
      [
        [first.rnc, "owner"],
        [second.rnc, "accountant"],
      ].sort(),
    );

    const switched = await browse(joined, "/console/session/company", { method: "POST", body: { rnc: first.rnc } });
    expect(switched.status).toBe(200);
    expect(await problemOf(switched)).toMatchObject({ company: { rnc: first.rnc }, role: "owner" });
    expect(((await (await browse(joined, "/company/me")).json()) as { registryNumber: string }).registryNumber).toBe(
      first.rnc,
    );
    const stranger = await createCompany();
    const refused = await browse(joined, "/console/session/company", { method: "POST", body: { rnc: stranger.rnc } });
    expect(refused.status).toBe(403);
  });
});

describe("the cookie", () => {
  it("over http: ecf_console, HttpOnly, SameSite=Strict, Path=/, not Secure", async () => {
    const company = await createCompany();
    const res = await accept(tokenOfLink((await adminInvite(company.id, freshEmail())).link));
    const header = res.headers.get("Set-Cookie")!;
    expect(header).toMatch(/^ecf_console=[A-Za-z0-9_-]{40,};/);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Strict/);
    expect(header).toMatch(/; Path=\//);
    expect(header).not.toMatch(/Secure/);
  });

  it("over https: __Host-ecf_console and Secure", async () => {
    const company = await createCompany();
    const email = freshEmail();
    await accept(tokenOfLink((await adminInvite(company.id, email)).link));
    const { SELF } = await import("cloudflare:test");
    const res = await SELF.fetch("https://ecf.test/console/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    // The signed-in user as the session shows it, never its stored row (the password hash leaked once).
    const answer = await res.clone().text();
    expect(Object.keys(JSON.parse(answer).user).sort()).toEqual(["email", "id", "name"]);
    expect(answer).not.toMatch(/passwordHash|pbkdf2/);
    const header = res.headers.get("Set-Cookie")!;
    expect(header).toMatch(/^__Host-ecf_console=[A-Za-z0-9_-]{40,};/);
    expect(header).toMatch(/; Secure/);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Strict/);
    expect(header).toMatch(/; Path=\//);
    const session = await SELF.fetch("https://ecf.test/console/session", { headers: { Cookie: cookieOf(res) } });
    expect(session.status).toBe(200);
    // The http name is not read over https.
    const plain = cookieOf(res).replace("__Host-ecf_console", "ecf_console");
    expect((await SELF.fetch("https://ecf.test/console/session", { headers: { Cookie: plain } })).status).toBe(401);
  });
});

describe("login", () => {
  it("the right password signs in; a wrong one and an unknown e-mail get the same 401", async () => {
    const { company, owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const wrong = await consoleLogin(email, "no-es-la-clave");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("Content-Type")).toContain("application/problem+json");
    const unknown = await consoleLogin(freshEmail("nadie"), PASSWORD);
    expect(unknown.status).toBe(401);
    expect((await problemOf(unknown)).detail).toBe((await problemOf(wrong)).detail);
    // E-mails are not case-sensitive.
    const right = await browserOf(await consoleLogin(email.toUpperCase(), PASSWORD));
    expect(right.session.company?.rnc).toBe(company.rnc);
    expect(right.cookie).not.toBe(owner.cookie);
  });

  it("throttles an address's failures, and never locks the right password out from another address", async () => {
    const { owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const attacker = { "CF-Connecting-IP": "10.36.0.66" };
    for (let i = 0; i < 5; i++) expect((await consoleLogin(email, `adivinanza-${i}`, attacker)).status).toBe(401);
    const throttled = await consoleLogin(email, PASSWORD, attacker);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await problemOf(throttled)).code).toBe("too_many_requests");
    const owners = await consoleLogin(email, PASSWORD, { "CF-Connecting-IP": "10.36.0.7" });
    expect(owners.status).toBe(200);
  });
});

describe("CSRF, logout and the session's end", () => {
  it("a cookie write without the CSRF header, or with a wrong one, is 403 csrf_failed; with it, it goes through", async () => {
    const { owner } = await companyWithOwner();
    const missing = await browse(owner, "/console/logout", { method: "POST", csrf: null });
    expect(missing.status).toBe(403);
    expect((await problemOf(missing)).code).toBe("csrf_failed");
    const wrong = await browse(owner, "/console/logout", { method: "POST", csrf: "x".repeat(32) });
    expect(wrong.status).toBe(403);
    expect((await problemOf(wrong)).code).toBe("csrf_failed");
    // The API's own writes too (a cashier).
    const api = await browse(owner, "/cashiers", { method: "POST", csrf: null, body: { name: "Luis", pin: "482193" } });
    expect(api.status).toBe(403);
    expect((await problemOf(api)).code).toBe("csrf_failed");
    const withIt = await browse(owner, "/cashiers", { method: "POST", body: { name: "Luis", pin: "482193" } });
    expect(withIt.status).toBe(201);
    // Still signed in: the refused requests changed nothing.
    expect((await browse(owner, "/console/session")).status).toBe(200);
  });

  it("logout ends the session on the server and clears the cookie", async () => {
    const { owner } = await companyWithOwner();
    const out = await browse(owner, "/console/logout", { method: "POST" });
    expect(out.status).toBe(204);
    expect(out.headers.get("Set-Cookie")).toMatch(/^ecf_console=;.*Max-Age=0/);
    expect((await browse(owner, "/console/session")).status).toBe(401);
    expect((await browse(owner, "/company/me")).status).toBe(401);
  });

  it("a session idle for 12 hours, or past its 7 days, is refused", async () => {
    const { owner } = await companyWithOwner();
    const hash = await sha256Hex(owner.cookie.split("=")[1]!);
    const idle = new Date(Date.now() - 12 * 3600_000 - 1000).toISOString();
    await d1("UPDATE console_sessions SET last_seen_at = ? WHERE token_hash = ?", idle, hash);
    const res = await browse(owner, "/console/session");
    expect(res.status).toBe(401);
    expect((await browse(owner, "/company/me")).status).toBe(401);

    const { owner: other } = await companyWithOwner();
    const otherHash = await sha256Hex(other.cookie.split("=")[1]!);
    expect((await browse(other, "/console/session")).status).toBe(200);
    await d1(
      "UPDATE console_sessions SET expires_at = ? WHERE token_hash = ?",
      new Date(Date.now() - 1).toISOString(),
      otherHash,
    );
    expect((await browse(other, "/console/session")).status).toBe(401);
  });

  it("no cookie: GET /console/session is 401; a bearer token is unaffected by the CSRF rule", async () => {
    expect((await call("/console/session")).status).toBe(401);
    const { token } = await (await import("./support/accounts.ts")).companyWithToken();
    const res = await call("/cashiers", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Marta", pin: "482193" }),
    });
    expect(res.status).toBe(201);
  });
});
