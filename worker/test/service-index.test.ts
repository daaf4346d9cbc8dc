// GET / answers the service's index (its version and where the reference, the contract and the
// apps are), not a 404 problem; every link it gives is served.
import { describe, expect, it } from "vitest";
import { API_VERSION } from "../src/version.ts";
import { call } from "./support/http.ts";

describe("GET /", () => {
  it("answers a JSON index of the service and its links", async () => {
    const res = await call("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { name: string; version: string; links: Record<string, string> };
    expect(body.name).toBe("ecf-edge");
    expect(body.version).toBe(API_VERSION);
    expect(body.links.openapi).toBe("http://ecf.test/openapi.json");
    for (const name of ["health", "openapi"]) {
      const linked = await call(new URL(body.links[name]!).pathname);
      expect(linked.status, name).toBe(200);
    }
  });
});
