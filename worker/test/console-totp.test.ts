// Two-step verification of owners and accountants (issue "Who holds the signature"): enrolment
// with a secret shown once, confirmation with the app's code, sign-in asking for it, a wrong or
// replayed code refused, a manager refused, turning it off; each change audited and e-mailed.
// The clock is Date faked to a fixed instant, so every code is computed for a known step.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_FAILURES_PER_KEY_AND_ADDRESS } from "../src/auth/throttle.ts";
import { base32Decode, timeStep, totpCode } from "../src/crypto/totp.ts";
import { createCompany } from "./support/accounts.ts";
import {
  adminInvite,
  accept,
  type Browser,
  browse,
  companyWithOwner,
  consoleUser,
  PASSWORD,
  tokenOfLink,
} from "./support/console.ts";
import { call } from "./support/http.ts";
import { sandboxUrl } from "./support/issuing.ts";
import { auditRows } from "./support/ledger.ts";

/** A fixed instant at the start of a 30-second step. */
const T0 = Date.UTC(2031, 2, 3, 10, 0, 0);
const setClock = (ms: number) => vi.setSystemTime(new Date(ms));
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  setClock(T0);
});
afterEach(() => vi.useRealTimers());

interface Enrolment {
  secret: string;
  otpauthUri: string;
}
const FROM = (n: number) => ({ "CF-Connecting-IP": `198.51.100.${n}` });
let addresses = 0;
const login = (email: string, body: Record<string, string>, from = FROM(++addresses)) =>
  call("/console/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...from },
    body: JSON.stringify({ email, password: PASSWORD, ...body }),
  });
const problem = async (res: Response) =>
  (await res.json()) as {
    code: string;
    detailEs: string;
    errors: { path: string; code: string; messageEs?: string }[];
  };
/** The app's code for the step `offset` steps from the clock's. */
const codeOf = async (enrolment: Enrolment, offset = 0) =>
  totpCode(base32Decode(enrolment.secret)!, timeStep(new Date()) + offset);
const mailsTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject: string }[])
    .filter((m) => m.to.includes(address))
    .map((m) => m.subject);

async function enrol(browser: Browser): Promise<Enrolment> {
  const res = await browse(browser, "/console/totp/enrolment", { method: "POST" });
  expect(res.status).toBe(200);
  return (await res.json()) as Enrolment;
}
async function enrolAndConfirm(browser: Browser): Promise<Enrolment> {
  const enrolment = await enrol(browser);
  const res = await browse(browser, "/console/totp/confirmation", {
    method: "POST",
    body: { code: await codeOf(enrolment) },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: "active", mayEnrol: true });
  return enrolment;
}

describe("enrolment", () => {
  it("gives a 20-byte secret once, asks nothing at sign-in until a code confirms it", async () => {
    const { company, owner } = await companyWithOwner();
    const email = owner.session.user.email;
    expect(await (await browse(owner, "/console/totp")).json()).toEqual({ status: "off", mayEnrol: true });
    const enrolment = await enrol(owner);
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(enrolment.secret)).toHaveLength(20);
    expect(enrolment.otpauthUri).toBe(
      `otpauth://totp/ecf-edge:${encodeURIComponent(email)}?secret=${enrolment.secret}&issuer=ecf-edge&algorithm=SHA1&digits=6&period=30`,
    );
    // Kept sealed, never in clear.
    const [row] = (
      await env.DB.prepare("SELECT * FROM console_totp WHERE user_id = ?1").bind(owner.session.user.id).all()
    ).results;
    expect(JSON.stringify(row)).not.toContain(enrolment.secret);
    expect(row).toMatchObject({ confirmed_at: null, last_step: null });

    // Pending: the password alone still signs in.
    expect(await (await browse(owner, "/console/totp")).json()).toEqual({ status: "pending", mayEnrol: true });
    expect((await login(email, {})).status).toBe(200);

    // A wrong code does not confirm it; the current one does, once.
    const wrong = await browse(owner, "/console/totp/confirmation", {
      method: "POST",
      body: { code: await otherCode(enrolment) },
    });
    expect(wrong.status).toBe(400);
    expect((await problem(wrong)).errors).toMatchObject([{ path: "/code", code: "totp_invalid" }]);
    const code = await codeOf(enrolment);
    expect((await browse(owner, "/console/totp/confirmation", { method: "POST", body: { code } })).status).toBe(200);
    expect((await browse(owner, "/console/totp/confirmation", { method: "POST", body: { code } })).status).toBe(409);

    // On: no new secret is given while it is (the secret is never shown again).
    const again = await browse(owner, "/console/totp/enrolment", { method: "POST" });
    expect(again.status).toBe(409);
    expect(await again.text()).not.toContain(enrolment.secret);
    expect(await mailsTo(email)).toContain("Verificación en dos pasos activada");
    const audited = await auditRows(company.id, "code LIKE 'totp_%'");
    expect(audited.map((r) => [r.code, r.actor])).toEqual([
      ["totp_enrolment_started", `user:${owner.session.user.id}`],
      ["totp_enabled", `user:${owner.session.user.id}`],
    ]);
  });

  it("is for owners and accountants: a manager is refused with a clear problem", async () => {
    const company = await createCompany();
    const manager = await consoleUser(company.id, "manager");
    expect(await (await browse(manager, "/console/totp")).json()).toEqual({ status: "off", mayEnrol: false });
    const res = await browse(manager, "/console/totp/enrolment", { method: "POST" });
    expect(res.status).toBe(403);
    const body = await problem(res);
    expect(body.code).toBe("forbidden");
    expect(body.detailEs).toContain("dueños y contadores");
    const accountant = await consoleUser(company.id, "accountant");
    await enrolAndConfirm(accountant);
    // Without a CSRF token nothing starts.
    expect((await browse(accountant, "/console/totp/enrolment", { method: "POST", csrf: null })).status).toBe(403);
  });
});

/** A six-digit code that is none of the secret's codes near the clock: wrong whatever the step. */
async function otherCode(enrolment: Enrolment): Promise<string> {
  const near = await Promise.all([-2, -1, 0, 1, 2].map((o) => codeOf(enrolment, o)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, "0");
    if (!near.includes(candidate)) return candidate;
  }
}

describe("sign-in with two-step verification on", () => {
  it("asks for the app's code, refuses a wrong one and a replayed one, takes the next step's", async () => {
    const { owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const enrolment = await enrolAndConfirm(owner);

    const bare = await login(email, {});
    expect(bare.status).toBe(401);
    expect(bare.headers.get("Content-Type")).toContain("application/problem+json");
    expect(bare.headers.get("Set-Cookie")).toBeNull();
    const required = await problem(bare);
    expect(required).toMatchObject({ code: "unauthorized", errors: [{ path: "/totp", code: "totp_required" }] });
    expect(required.errors[0]!.messageEs).toContain("aplicación de autenticación");
    // A wrong password still gets the plain 401: the app's code is asked only after the password.
    const wrongPassword = await call("/console/login", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...FROM(++addresses) },
      body: JSON.stringify({ email, password: "no-es-la-clave-9", totp: await codeOf(enrolment, 1) }),
    });
    expect((await problem(wrongPassword)).errors).toEqual([]);

    const wrong = await login(email, { totp: await otherCode(enrolment) });
    expect(wrong.status).toBe(401);
    expect((await problem(wrong)).errors).toMatchObject([{ path: "/totp", code: "totp_invalid" }]);

    // The confirmation used this step's code: it does not sign in.
    expect((await problem(await login(email, { totp: await codeOf(enrolment) }))).errors[0]!.code).toBe("totp_invalid");
    setClock(T0 + 30_000);
    const code = await codeOf(enrolment);
    const signedIn = await login(email, { totp: code });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("Set-Cookie")).toContain("ecf_console=");
    // Never twice, not even from elsewhere within its window.
    expect((await problem(await login(email, { totp: code }))).errors[0]!.code).toBe("totp_invalid");
    setClock(T0 + 45_000);
    expect((await login(email, { totp: code })).status).toBe(401);
    // The next step's code, a step early (a phone's clock ahead), signs in; two steps ahead does not.
    expect((await login(email, { totp: await codeOf(enrolment, 2) })).status).toBe(401);
    expect((await login(email, { totp: await codeOf(enrolment, 1) })).status).toBe(200);
    // A code a step old is taken no more once a later one was used.
    setClock(T0 + 90_000);
    expect((await login(email, { totp: await codeOf(enrolment, -1) })).status).toBe(401);
    expect(
      (await login(email, { totp: `${(await codeOf(enrolment)).slice(0, 3)} ${(await codeOf(enrolment)).slice(3)}` }))
        .status,
    ).toBe(200);
  });

  it("counts wrong codes in the sign-in throttle, and then takes the e-mailed code with the app's", async () => {
    const { owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const enrolment = await enrolAndConfirm(owner);
    const from = FROM(200);
    for (let i = 0; i < MAX_FAILURES_PER_KEY_AND_ADDRESS; i++)
      expect((await login(email, { totp: await otherCode(enrolment) }, from)).status).toBe(401);
    setClock(T0 + 30_000);
    // Throttled: even the right app code alone is the same 429 as a wrong password.
    const throttled = await login(email, { totp: await codeOf(enrolment) }, from);
    expect(throttled.status).toBe(429);
    expect((await problem(throttled)).errors).toMatchObject([{ path: "/code", code: "email_code_required" }]);
    const mailed = ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject: string }[])
      .filter((m) => m.to.includes(email))
      .flatMap((m) => /código para entrar: (\d{6})/.exec(m.subject)?.slice(1) ?? []);
    expect(mailed).toHaveLength(1);
    // The e-mailed code without the app's does not sign in; with it, it does.
    setClock(T0 + 60_000);
    expect((await login(email, { code: mailed[0]! }, from)).status).toBe(429);
    expect((await login(email, { code: mailed[0]!, totp: await codeOf(enrolment) }, from)).status).toBe(200);
  });

  it("is asked also when an existing user accepts an invitation to another company", async () => {
    const { owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const enrolment = await enrolAndConfirm(owner);
    const other = await createCompany();
    const { link } = await adminInvite(other.id, email, "accountant");
    const token = tokenOfLink(link);
    const bare = await accept(token);
    expect(bare.status).toBe(401);
    expect((await problem(bare)).errors[0]!.code).toBe("totp_required");
    setClock(T0 + 30_000);
    const res = await call(`/console/invitations/${token}/accept`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ password: PASSWORD, totp: await codeOf(enrolment) }),
    });
    expect(res.status).toBe(200);
  });
});

describe("turning it off", () => {
  it("takes the app's code or the password, not a wrong one; then the password alone signs in", async () => {
    const { company, owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const enrolment = await enrolAndConfirm(owner);
    const off = (body: Record<string, string>) => browse(owner, "/console/totp/disable", { method: "POST", body });

    expect((await off({})).status).toBe(400);
    const wrong = await off({ code: await otherCode(enrolment) });
    expect(wrong.status).toBe(400);
    expect((await problem(wrong)).errors[0]).toMatchObject({ path: "/code", code: "totp_invalid" });
    expect((await problem(await off({ password: "no-es-la-clave-9" }))).errors[0]!.code).toBe("wrong_password");
    // The code the confirmation used is spent.
    expect((await off({ code: await codeOf(enrolment) })).status).toBe(400);
    setClock(T0 + 30_000);
    const done = await off({ code: await codeOf(enrolment) });
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ status: "off", mayEnrol: true });
    expect((await off({ password: PASSWORD })).status).toBe(409);
    expect((await login(email, {})).status).toBe(200);
    expect(await mailsTo(email)).toContain("Verificación en dos pasos desactivada");
    expect((await auditRows(company.id, "code = 'totp_disabled'")).length).toBe(1);

    // On again with a new secret, off with the password.
    const second = await enrolAndConfirm(owner);
    expect(second.secret).not.toBe(enrolment.secret);
    expect((await off({ password: PASSWORD })).status).toBe(200);
  });
});
