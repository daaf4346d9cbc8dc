// What an invitation link can and cannot do: accepting one never changes the role of someone who
// is a member already (so an old owner link cannot promote a manager, nor demote the last owner),
// a removed user's older links are dead, a new password may not be a common one, wrong passwords on
// acceptance are throttled as at sign-in, and two acceptances at once never fail midway.
import { describe, expect, it } from "vitest";
import { createCompany } from "./support/accounts.ts";
import {
  accept,
  adminInvite,
  browse,
  browserOf,
  consoleLogin,
  consoleUser,
  freshEmail,
  PASSWORD,
  tokenOfLink,
} from "./support/console.ts";
import { call } from "./support/http.ts";

type Problem = { code: string; errors?: { path: string; code: string }[] };
const problemOf = async (res: Response) => (await res.json()) as Problem;
const linkFor = async (companyId: string, email: string, role: string) =>
  tokenOfLink((await adminInvite(companyId, email, role)).link);
const roleIn = async (companyId: string, email: string) => {
  const owner = await consoleUser(companyId, "owner");
  const users = (await (await browse(owner, "/console/users")).json()) as { items: { email: string; role: string }[] };
  return users.items.find((u) => u.email === email)?.role;
};

describe("accepting an invitation never changes a member's role", () => {
  it("a manager who kept an older owner link stays a manager (409 already_member)", async () => {
    const company = await createCompany();
    const email = freshEmail("encargado");
    const ownerLink = await linkFor(company.id, email, "owner");
    await browserOf(await accept(await linkFor(company.id, email, "manager")));
    const promoted = await accept(ownerLink);
    expect(promoted.status).toBe(409);
    expect((await problemOf(promoted)).errors).toEqual([expect.objectContaining({ code: "already_member" })]);
    expect(await roleIn(company.id, email)).toBe("manager");
  });

  it("the sole owner cannot demote themselves through a manager link: the company keeps its owner", async () => {
    const company = await createCompany();
    const email = freshEmail("dueno");
    const managerLink = await linkFor(company.id, email, "manager");
    await browserOf(await accept(await linkFor(company.id, email, "owner")));
    expect((await accept(managerLink)).status).toBe(409);
    expect(await roleIn(company.id, email)).toBe("owner");
  });
});

describe("removing a user", () => {
  it("expires the user's pending links: a second link sent before the removal does not bring them back", async () => {
    const company = await createCompany();
    const owner = await consoleUser(company.id, "owner");
    const email = freshEmail("contador");
    const spare = await linkFor(company.id, email, "accountant");
    const removed = await browserOf(await accept(await linkFor(company.id, email, "accountant")));
    expect((await browse(owner, `/console/users/${removed.session.user.id}`, { method: "DELETE" })).status).toBe(204);
    const back = await accept(spare);
    expect(back.status).toBe(410);
    expect((await problemOf(back)).code).toBe("expired");
    expect(await roleIn(company.id, email)).toBeUndefined();
  });
});

describe("a new console password", () => {
  it("is refused when it is a common one or the address itself (400 weak_password on /password)", async () => {
    const company = await createCompany();
    const email = freshEmail("nuevo");
    const token = await linkFor(company.id, email, "manager");
    for (const password of ["1234567890", "password12", "aaaaaaaaaaaa", email.split("@")[0]!]) {
      const refused = await accept(token, password);
      expect(refused.status, password).toBe(400);
      expect((await problemOf(refused)).errors, password).toEqual([
        expect.objectContaining({ path: "/password", code: "weak_password" }),
      ]);
    }
    expect((await accept(token, PASSWORD)).status).toBe(200);
  });
});

describe("wrong passwords on acceptance", () => {
  const acceptFrom = (token: string, password: string, address: string) =>
    call(`/console/invitations/${token}/accept`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": address },
      body: JSON.stringify({ password }),
    });

  it("are throttled as at sign-in: after five, the address gets 429 even with the right password", async () => {
    const [first, second] = [await createCompany(), await createCompany()];
    const email = freshEmail("socio");
    await consoleUser(first.id, "owner", email);
    const token = await linkFor(second.id, email, "accountant");
    // Five addresses of one /64 are one network to the throttle.
    for (let i = 0; i < 5; i++)
      expect((await acceptFrom(token, `adivinanza-${i}`, `2001:db8:36:1::${i}`)).status).toBe(401);
    const throttled = await acceptFrom(token, PASSWORD, "2001:db8:36:1:ffff::9");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("Retry-After"))).toBeGreaterThan(0);
    // The same counts at sign-in, and another network is not held back.
    expect((await consoleLogin(email, PASSWORD, { "CF-Connecting-IP": "2001:db8:36:1::77" })).status).toBe(429);
    expect((await acceptFrom(token, PASSWORD, "2001:db8:36:2::1")).status).toBe(200);
  });
});

describe("two acceptances at once", () => {
  it("of two links to one new address: both join, no 500, one user", async () => {
    const [first, second] = [await createCompany(), await createCompany()];
    const email = freshEmail("doble");
    const tokens = [await linkFor(first.id, email, "owner"), await linkFor(second.id, email, "accountant")];
    const answers = await Promise.all(tokens.map((token) => accept(token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const sessions = await Promise.all(answers.map(browserOf));
    expect(new Set(sessions.map((s) => s.session.user.id)).size).toBe(1);
  });

  it("of one link: one session, the other a 410, and the link is spent once", async () => {
    const company = await createCompany();
    const email = freshEmail("clic");
    const token = await linkFor(company.id, email, "manager");
    const statuses = (await Promise.all([accept(token), accept(token)])).map((a) => a.status).sort();
    expect(statuses).toEqual([200, 410]);
    expect(await roleIn(company.id, email)).toBe("manager");
  });
});
