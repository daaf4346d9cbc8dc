// Every problem document is bilingual: each code of the closed list (errors/problem.ts) has a
// Spanish title and a Spanish explanation, and the real answers (an expired session's 401, a
// forbidden console write, a missing route, a request that fails its schema) carry them beside
// the English ones.
import { describe, expect, it } from "vitest";
import { PROBLEM_CODES, PROBLEM_TITLES } from "../src/errors/problem.ts";
import { problemBody } from "../src/http/problem.ts";
import { call, postJson } from "./support/http.ts";

interface Body {
  code: string;
  title: string;
  detail: string;
  titleEs?: string;
  detailEs?: string;
}

function expectBilingual(body: Body) {
  expect(body.titleEs, body.code).toMatch(/\p{L}{3}/u);
  expect(body.detailEs, body.code).toMatch(/\p{L}{3}/u);
  expect(body.titleEs, body.code).not.toBe(body.title);
  expect(body.detailEs, body.code).not.toBe(body.detail);
}

describe("problem documents in Spanish", () => {
  it("has a Spanish title and explanation for every problem code", () => {
    expect(PROBLEM_CODES.length).toBeGreaterThan(20);
    for (const code of PROBLEM_CODES) {
      const body = problemBody(code, "req-1", "/x", { detail: `English detail of ${code}` });
      expect(body.title).toBe(PROBLEM_TITLES[code]);
      expectBilingual(body);
    }
  });

  it("keeps the thrower's own Spanish detail when it wrote one", () => {
    const body = problemBody("not_found", "req-1", "/x", { detail: "No receipt.", detailEs: "No hay comprobante." });
    expect(body.detailEs).toBe("No hay comprobante.");
  });

  it("answers a request without a token (401) in both languages", async () => {
    const res = await call("/company/me");
    expect(res.status).toBe(401);
    const body = (await res.json()) as Body;
    expect(body.code).toBe("unauthorized");
    expectBilingual(body);
  });

  it("answers a malformed token (401) in both languages", async () => {
    const res = await call("/company/me", { headers: { Authorization: "Bearer not-a-token" } });
    expect(res.status).toBe(401);
    expectBilingual((await res.json()) as Body);
  });

  it("answers a route that does not exist (404) in both languages", async () => {
    const res = await call("/no-such-thing/here");
    expect(res.status).toBe(404);
    expectBilingual((await res.json()) as Body);
  });

  it("answers a body that fails its schema (400) in both languages", async () => {
    const res = await postJson("/login", { apiKey: 7 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Body;
    expect(body.code).toBe("validation_failed");
    expectBilingual(body);
  });
});
