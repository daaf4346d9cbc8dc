// Once an account's sign-ins from an address trip the throttle, the right password alone no longer
// signs in from there: the answer is the same 429 for a right and a wrong password, the right one
// e-mails a one-time code, and the password with that code signs in (the owner is never locked out).
import { describe, expect, it } from "vitest";
import { MAX_FAILURES_PER_KEY_AND_ADDRESS } from "../src/auth/throttle.ts";
import { companyWithOwner, consoleLogin, PASSWORD } from "./support/console.ts";
import { call } from "./support/http.ts";
import { sandboxUrl } from "./support/issuing.ts";

const codesTo = async (address: string) =>
  ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject: string }[])
    .filter((m) => m.to.includes(address))
    .flatMap((m) => /código para entrar: (\d{6})/.exec(m.subject)?.slice(1) ?? []);
const login = (email: string, password: string, from: Record<string, string>, code?: string) =>
  call("/console/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...from },
    body: JSON.stringify({ email, password, ...(code ? { code } : {}) }),
  });
const problem = async (res: Response) =>
  (await res.json()) as { code: string; errors: { path: string; code: string }[] };

describe("a throttled account's right password", () => {
  it("asks for the e-mailed code, answers a guesser the same, and signs in with the code", async () => {
    const { owner } = await companyWithOwner();
    const email = owner.session.user.email;
    const from = { "CF-Connecting-IP": "203.0.113.77" };
    for (let i = 0; i < MAX_FAILURES_PER_KEY_AND_ADDRESS; i++)
      expect((await consoleLogin(email, "no-es-la-clave-1", from)).status).toBe(401);

    // A wrong password and the right one get the same answer; only the right one mails a code.
    const wrong = await login(email, "otra-clave-falsa-2", from);
    expect(wrong.status).toBe(429);
    expect(await codesTo(email)).toEqual([]);
    const right = await login(email, PASSWORD, from);
    expect(right.status).toBe(429);
    expect(right.headers.get("Set-Cookie")).toBeNull();
    const [wrongBody, rightBody] = [await problem(wrong), await problem(right)];
    expect(rightBody).toMatchObject({
      code: "too_many_requests",
      errors: [{ path: "/code", code: "email_code_required" }],
    });
    expect({ ...wrongBody, requestId: null }).toEqual({ ...rightBody, requestId: null });
    const [code] = await codesTo(email);
    expect(code).toMatch(/^\d{6}$/);

    // The code with a wrong password, or a wrong code with the right password, is nothing.
    expect((await login(email, "otra-clave-falsa-2", from, code)).status).toBe(429);
    const other = code === "000000" ? "111111" : "000000";
    expect((await login(email, PASSWORD, from, other)).status).toBe(429);
    const signedIn = await login(email, PASSWORD, from, code);
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("Set-Cookie")).toContain("ecf_console=");
    // Used once; and the throttle was cleared by the sign-in.
    expect((await login(email, PASSWORD, from)).status).toBe(200);
  });
});
