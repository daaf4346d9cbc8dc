// What each console role may do on the API's real routes (the console contract), one table; the
// company's users managed by its owners (never without an owner); and a user of one company never
// reaching another's data, over every issuer-scoped operation of the OpenAPI document.
import { beforeAll, describe, expect, it } from "vitest";
import { createCompany } from "./support/accounts.ts";
import {
  type Browser,
  accept,
  browse,
  browserOf,
  companyWithOwner,
  consoleUser,
  freshEmail,
  tokenOfLink,
} from "./support/console.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer, sandboxUrl } from "./support/issuing.ts";

type Role = "owner" | "accountant" | "manager";
type Problem = { code: string; detail: string };

/** A call and the roles it is allowed to (the others get 403 forbidden). */
interface Case {
  method: string;
  path: string;
  body?: unknown;
  allowed: readonly Role[];
}

const ALL: readonly Role[] = ["owner", "accountant", "manager"];
// biome-ignore format: one call per line
const CASES: readonly Case[] = [
  // Settings and the company: the owner's; the accountant reads them.
  { method: "GET", path: "/company/me", allowed: ["owner", "accountant"] },
  { method: "PUT", path: "/company/sequences/31", body: {}, allowed: ["owner"] },
  { method: "PUT", path: "/receiver/settings", body: { requireAuthentication: false }, allowed: ["owner"] },
  { method: "GET", path: "/webhooks", allowed: ["owner", "accountant"] },
  { method: "POST", path: "/webhooks", body: {}, allowed: ["owner"] },
  { method: "PUT", path: "/company/certificate", body: {}, allowed: ["owner"] },
  { method: "PATCH", path: "/company/me", body: { totalsPolicy: "strict" }, allowed: ["owner"] },
  { method: "GET", path: "/company/api-keys", allowed: ["owner"] },
  { method: "POST", path: "/company/api-keys/none/revoke", allowed: ["owner"] },
  // Issuing and receipts: the accountant issues, voids, resends; the manager reads.
  { method: "POST", path: "/fe/recepcion/ecf", body: {}, allowed: ["owner", "accountant"] },
  { method: "GET", path: "/fe/recepcion/ecf/E310000000001", allowed: ALL },
  { method: "GET", path: "/fe/recepcion/ecf/E310000000001/notes", allowed: ALL },
  { method: "POST", path: "/fe/recepcion/ecf/E310000000001/email", body: { to: "a@b.do" }, allowed: ["owner", "accountant"] },
  { method: "POST", path: "/fe/anulacion", body: {}, allowed: ["owner", "accountant"] },
  // Buyers' crédito fiscal requests: the books' people decide them.
  { method: "GET", path: "/credito-fiscal/requests", allowed: ["owner", "accountant"] },
  { method: "POST", path: "/credito-fiscal/requests/none/approve", allowed: ["owner", "accountant"] },
  { method: "POST", path: "/credito-fiscal/requests/none/reject", body: { reason: "no" }, allowed: ["owner", "accountant"] },
  // Purchases, the 607's sale data, the month's files and archive: the accountant's.
  { method: "PATCH", path: "/compras/2026-01.none", body: {}, allowed: ["owner", "accountant"] },
  { method: "POST", path: "/compras/2026-01.none/aprobacion", body: {}, allowed: ["owner", "accountant"] },
  { method: "PUT", path: "/proveedores/131880681/clasificacion", body: {}, allowed: ["owner", "accountant"] },
  { method: "PATCH", path: "/ventas/E310000000001", body: {}, allowed: ["owner", "accountant"] },
  { method: "GET", path: "/archive/2026-01", allowed: ["owner", "accountant"] },
  // Reports (the shifts' Z reports among them): everyone reads.
  { method: "GET", path: "/reports/encf", allowed: ALL },
  { method: "GET", path: "/reports/606?periodo=202601", allowed: ALL },
  { method: "GET", path: "/reports/turnos", allowed: ALL },
  // The store: the manager's.
  { method: "GET", path: "/products", allowed: ALL },
  { method: "POST", path: "/products", body: {}, allowed: ["owner", "manager"] },
  { method: "POST", path: "/cashiers", body: { name: "Rosa", pin: "482193" }, allowed: ["owner", "manager"] },
  { method: "GET", path: "/devices", allowed: ALL },
  { method: "POST", path: "/devices", body: { name: "Caja 2" }, allowed: ["owner", "manager"] },
  { method: "POST", path: "/tills/none/revoke", allowed: ["owner", "manager"] },
  // The console's people: the owner's.
  { method: "GET", path: "/console/users", allowed: ["owner"] },
  { method: "POST", path: "/console/invitations", body: { email: "x@y.do", role: "manager" }, allowed: ["owner"] },
];

describe("each role's allowed and refused calls on the real routes", () => {
  const browsers = {} as Record<Role, Browser>;
  beforeAll(async () => {
    const company = await createCompany();
    for (const role of ALL) browsers[role] = await consoleUser(company.id, role);
  }, 60_000);

  for (const role of ALL) {
    for (const c of CASES) {
      const allowed = c.allowed.includes(role);
      it(`${role}: ${c.method} ${c.path} is ${allowed ? "allowed" : "refused"}`, async () => {
        const res = await browse(browsers[role], c.path, { method: c.method, body: c.body });
        const text = await res.text();
        if (allowed) {
          expect([401, 403], `${res.status} ${text}`).not.toContain(res.status);
        } else {
          expect(res.status, text).toBe(403);
          const problem = JSON.parse(text) as Problem;
          expect(problem.code).toBe("forbidden");
          expect(problem.detail).toContain(`needs the role ${c.allowed.join(" or ")}`);
        }
      });
    }
  }
});

describe("the company's users", () => {
  const mailTo = async (address: string) =>
    ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; text: string }[]).filter((m) =>
      m.to.includes(address),
    );

  it("an owner invites by e-mail; the invited user joins with that role; the owner lists and changes roles", async () => {
    const { company, owner } = await companyWithOwner();
    const email = freshEmail("contadora");
    const invited = await browse(owner, "/console/invitations", {
      method: "POST",
      body: { email, role: "accountant", name: "María" },
    });
    expect(invited.status).toBe(201);
    expect(await invited.json()).toMatchObject({ email, role: "accountant", emailSent: true });
    const [mail] = await mailTo(email);
    const link = /http\S+\/app\/#\/invitacion\/\S+/.exec(mail?.text ?? "")?.[0];
    expect(link, mail?.text).toBeDefined();
    const accountant = await browserOf(await accept(tokenOfLink(link!)));
    expect(accountant.session).toMatchObject({ role: "accountant", company: { rnc: company.rnc } });
    expect(accountant.session.user.name).toBe("María");

    const listed = (await (await browse(owner, "/console/users")).json()) as { items: { id: string; role: string }[] };
    expect(listed.items.map((u) => u.role).sort()).toEqual(["accountant", "owner"]);

    // A new role applies to the user's next request.
    expect((await browse(accountant, "/company/me")).status).toBe(200);
    const changed = await browse(owner, `/console/users/${accountant.session.user.id}`, {
      method: "PATCH",
      body: { role: "manager" },
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ id: accountant.session.user.id, role: "manager" });
    expect((await browse(accountant, "/company/me")).status).toBe(403);
    expect((await browse(accountant, "/products")).status).toBe(200);
  });

  it("the last owner can be neither removed nor demoted; once another owner exists, it can", async () => {
    const { company, owner } = await companyWithOwner();
    const self = `/console/users/${owner.session.user.id}`;
    const removed = await browse(owner, self, { method: "DELETE" });
    expect(removed.status).toBe(409);
    expect(((await removed.json()) as Problem).code).toBe("conflict");
    const demoted = await browse(owner, self, { method: "PATCH", body: { role: "accountant" } });
    expect(demoted.status).toBe(409);
    expect((await browse(owner, "/console/users")).status).toBe(200);

    const second = await consoleUser(company.id, "owner");
    expect((await browse(second, self, { method: "DELETE" })).status).toBe(204);
    // The removed owner's session acts for no company any more.
    const gone = await browse(owner, "/company/me");
    expect(gone.status).toBe(403);
    expect((await browse(second, `/console/users/${second.session.user.id}`, { method: "DELETE" })).status).toBe(409);
    expect((await browse(second, "/console/users/usr_nobody", { method: "DELETE" })).status).toBe(404);
  });

  it("an API key does not manage console users", async () => {
    const { token } = await (await import("./support/accounts.ts")).companyWithToken();
    const res = await call("/console/users", { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
  });
});

describe("a console user of one company never reaches another's data", () => {
  type Operation = { security?: Record<string, string[]>[] };
  let victim: { id: string; rnc: string };
  let encf: string;
  let intruder: Browser;

  beforeAll(async () => {
    let token: string;
    ({ company: victim, token } = await issuer());
    const issued = await issue(token, issueRequest("31"));
    expect(issued.status).toBeLessThan(300);
    encf = issued.body.encf;
    await consoleUser(victim.id, "owner");
    ({ owner: intruder } = await companyWithOwner());
  }, 60_000);

  it("every issuer-scoped operation naming the other company in X-RNC-Emisor is refused", async () => {
    const doc = (await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, Operation>> };
    const scoped = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.some((s) => "consoleSession" in s) && !path.startsWith("/console/"))
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "E310000000001") })),
    );
    expect(scoped.length).toBeGreaterThan(40);
    for (const { method, path } of scoped) {
      const res = await browse(intruder, path, { method, headers: { "X-RNC-Emisor": victim.rnc } });
      expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(403);
    }
  });

  it("the other company's receipt is not found, and its reports and users are not listed", async () => {
    expect((await browse(intruder, `/fe/recepcion/ecf/${encf}`)).status).toBe(404);
    expect((await browse(intruder, `/fe/recepcion/ecf/${encf}/notes`)).status).toBe(404);
    const report = (await (await browse(intruder, "/reports/encf")).json()) as { items?: unknown[] };
    expect(JSON.stringify(report)).not.toContain(encf);
    const users = (await (await browse(intruder, "/console/users")).json()) as { items: { email: string }[] };
    expect(users.items).toHaveLength(1);
    expect(users.items[0]!.email).toBe(intruder.session.user.email);
    const victimUser = (await browse(intruder, "/console/users/usr_x", { method: "DELETE" })).status;
    expect(victimUser).toBe(404);
  });
});
