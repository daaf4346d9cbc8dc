// An owner sees the company's pending invitations and cancels one: its link is dead at once.
// Other roles and other companies' owners can do neither.
import { describe, expect, it } from "vitest";
import {
  accept,
  adminInvite,
  browse,
  companyWithOwner,
  consoleUser,
  freshEmail,
  tokenOfLink,
} from "./support/console.ts";

type Pending = { id: string; email: string; role: string };
const pendingOf = async (res: Response) => ((await res.json()) as { items: Pending[] }).items;

describe("pending invitations", () => {
  it("the owner lists them and cancels one; its link no longer works, the other's does", async () => {
    const { company, owner } = await companyWithOwner();
    const first = freshEmail("contador");
    const second = freshEmail("encargado");
    const a = await adminInvite(company.id, first, "accountant");
    const b = await adminInvite(company.id, second, "manager");
    const listed = await browse(owner, "/console/invitations");
    expect(listed.status).toBe(200);
    expect((await pendingOf(listed)).map((p) => [p.email, p.role])).toEqual([
      [first, "accountant"],
      [second, "manager"],
    ]);

    const cancelled = await browse(owner, `/console/invitations/${a.id}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(204);
    expect((await pendingOf(await browse(owner, "/console/invitations"))).map((p) => p.email)).toEqual([second]);
    expect((await browse(owner, `/console/invitations/${a.id}/cancel`, { method: "POST" })).status).toBe(404);
    const dead = await accept(tokenOfLink(a.link));
    expect(dead.status).toBeGreaterThanOrEqual(400);
    expect(dead.status).toBeLessThan(500);
    expect((await accept(tokenOfLink(b.link))).status).toBe(200);
    expect(await pendingOf(await browse(owner, "/console/invitations"))).toEqual([]);
  });

  it("a manager cannot list or cancel; another company's owner cannot cancel", async () => {
    const { company } = await companyWithOwner();
    const manager = await consoleUser(company.id, "manager");
    const invited = await adminInvite(company.id, freshEmail("alguien"), "manager");
    expect((await browse(manager, "/console/invitations")).status).toBe(403);
    expect((await browse(manager, `/console/invitations/${invited.id}/cancel`, { method: "POST" })).status).toBe(403);
    const other = await companyWithOwner();
    expect((await browse(other.owner, `/console/invitations/${invited.id}/cancel`, { method: "POST" })).status).toBe(
      404,
    );
    expect((await accept(tokenOfLink(invited.link))).status).toBe(200);
  });
});
