// One receipt cannot flood an inbox: POST /fe/recepcion/ecf/{encf}/email sends a receipt to one
// address at most EMAILS_PER_ADDRESS_PER_HOUR times an hour, and to all addresses at most
// EMAILS_PER_RECEIPT_PER_DAY times a day; past that, a 429 problem with Retry-After, and nothing
// is queued. The count lives in the receipt's month object (queueEmail), so it holds at once.
import { drMonth } from "@ecf/shared";
import { afterEach, describe, expect, it } from "vitest";
import { EMAILS_PER_ADDRESS_PER_HOUR, EMAILS_PER_RECEIPT_PER_DAY } from "../src/ledger/month/email-limits.ts";
import { authed } from "./support/accounts.ts";
import { postJson } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer } from "./support/issuing.ts";
import { monthSql } from "./support/ledger.ts";

afterEach(clearFaults);

const emailTasks = (companyId: string) =>
  monthSql(companyId, drMonth(new Date()), "SELECT payload FROM tasks WHERE kind = 'email'");

describe("e-mail resends of one receipt", () => {
  it("the address's 4th sending within the hour is a 429 with Retry-After; another address still works", async () => {
    const { company, token } = await issuer();
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(200);
    const send = (to: string) => postJson(`/fe/recepcion/ecf/${body.encf}/email`, { to }, authed(token));
    const address = `compras-${company.rnc}@cliente.com.do`;
    for (let i = 0; i < EMAILS_PER_ADDRESS_PER_HOUR; i++) expect((await send(address)).status).toBe(202);
    // The address typed differently is the same address.
    const refused = await send(address.toUpperCase());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Content-Type")).toContain("application/problem+json");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(3600 - 120);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const problem = (await refused.json()) as { code: string; errors: { path: string; code: string }[] };
    expect(problem.code).toBe("too_many_requests");
    expect(problem.errors).toEqual([expect.objectContaining({ path: "/to", code: "email_limit_reached" })]);
    expect(await emailTasks(company.id)).toHaveLength(EMAILS_PER_ADDRESS_PER_HOUR);
    expect((await send(`contabilidad-${company.rnc}@cliente.com.do`)).status).toBe(202);

    // An hour later (the sendings aged instead of waiting) the address may have it again.
    await monthSql(
      company.id,
      drMonth(new Date()),
      "UPDATE tasks SET created_at = ?1 WHERE kind = 'email'",
      new Date(Date.now() - 3_600_000 - 1000).toISOString(),
    );
    expect((await send(address)).status).toBe(202);
  });

  it("past the day's sendings of the receipt, any address gets a 429", async () => {
    const { company, token } = await issuer();
    const { body } = await issue(token, issueRequest("32"));
    const send = (to: string) => postJson(`/fe/recepcion/ecf/${body.encf}/email`, { to }, authed(token));
    for (let i = 0; i < EMAILS_PER_RECEIPT_PER_DAY; i++)
      expect((await send(`persona-${i}-${company.rnc}@cliente.com.do`)).status).toBe(202);
    const refused = await send(`otra-${company.rnc}@cliente.com.do`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(23 * 3600);
  });
});
