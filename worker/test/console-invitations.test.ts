// An owner's invitations are limited per address (issue 36): resending a lost one works, flooding an
// inbox does not. The 4th invitation to one address within an hour is a 429 problem with
// Retry-After; other addresses and other companies are not affected; an hour later it works again.
import { describe, expect, it } from "vitest";
import {
  INVITATION_WINDOW_MS,
  INVITATIONS_PER_ADDRESS,
  INVITATIONS_PER_COMPANY_PER_DAY,
} from "../src/console/invitations.ts";
import { type Browser, browse, companyWithOwner, d1, freshEmail } from "./support/console.ts";
import { sandboxUrl } from "./support/issuing.ts";

const invite = (owner: Browser, email: string) =>
  browse(owner, "/console/invitations", { method: "POST", body: { email, role: "manager" } });

const mailTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[] }[]).filter((m) => m.to.includes(address));

describe("invitation resend limit", () => {
  it("the 4th invitation to one address within the hour is a 429 with Retry-After; nothing is mailed", async () => {
    const { owner } = await companyWithOwner();
    const email = freshEmail("encargado");
    for (let i = 0; i < INVITATIONS_PER_ADDRESS; i++) expect((await invite(owner, email)).status).toBe(201);
    // The address typed differently is the same address.
    const refused = await invite(owner, ` ${email.toUpperCase()} `);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Content-Type")).toContain("application/problem+json");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(INVITATION_WINDOW_MS / 1000 - 120);
    expect(retryAfter).toBeLessThanOrEqual(INVITATION_WINDOW_MS / 1000);
    const problem = (await refused.json()) as { code: string; detail: string };
    expect(problem.code).toBe("too_many_requests");
    expect(problem.detail).toContain(email);
    expect(await mailTo(email)).toHaveLength(INVITATIONS_PER_ADDRESS);
    // Someone else can still be invited.
    expect((await invite(owner, freshEmail("otro"))).status).toBe(201);
  });

  it("another company's owner may still invite the address; an hour later the first may too", async () => {
    const first = await companyWithOwner();
    const second = await companyWithOwner();
    const email = freshEmail("contador");
    for (let i = 0; i < INVITATIONS_PER_ADDRESS; i++) expect((await invite(first.owner, email)).status).toBe(201);
    expect((await invite(first.owner, email)).status).toBe(429);
    expect((await invite(second.owner, email)).status).toBe(201);
    // The window passes (the invitations aged instead of waiting an hour).
    const hourAgo = new Date(Date.now() - INVITATION_WINDOW_MS - 1000).toISOString();
    await d1(
      "UPDATE console_invitations SET created_at = ? WHERE company_id = ? AND email = ?",
      hourAgo,
      first.company.id,
      email,
    );
    expect((await invite(first.owner, email)).status).toBe(201);
  });
});

describe("invitations per company and day", () => {
  it("past the day's share, the next invitation to any address is a 429; a day later it works again", async () => {
    const { owner, company } = await companyWithOwner();
    // The day's earlier invitations, written as sent an hour ago instead of mailing fifty.
    const hourAgo = new Date(Date.now() - INVITATION_WINDOW_MS).toISOString();
    for (let i = 0; i < INVITATIONS_PER_COMPANY_PER_DAY; i++)
      await d1(
        "INSERT INTO console_invitations (id, token_hash, email, company_id, role, expires_at, created_at) VALUES (?, ?, ?, ?, 'manager', ?, ?)",
        `inv_day_${company.id}_${i}`,
        `hash-${company.id}-${i}`,
        `equipo-${i}@empresa.com.do`,
        company.id,
        new Date(Date.now() + INVITATION_WINDOW_MS).toISOString(),
        hourAgo,
      );
    const refused = await invite(owner, freshEmail("uno-mas"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(22 * 3600);
    await d1(
      "UPDATE console_invitations SET created_at = ? WHERE company_id = ?",
      "2020-01-01T00:00:00.000Z",
      company.id,
    );
    expect((await invite(owner, freshEmail("uno-mas"))).status).toBe(201);
  });
});
