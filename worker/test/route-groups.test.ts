// The route groups load on the first request for a prefix they serve (http/lazy-routes.ts), so the
// table in app.ts must name every first path segment of every group's routes: a segment left out
// would answer 404 to a route that exists. And a group's module is not run before it is needed.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp, ROUTE_GROUPS } from "../src/app.ts";
import { RNC_SEGMENT } from "../src/http/lazy-routes.ts";

/** "/admin" + "/companies/:id" → "admin"; a parameter first ("/:rnc/...") → RNC_SEGMENT. */
function firstSegment(mount: string, path: string): string {
  const joined = `${mount.replace(/\/$/, "")}/${path.replace(/^\//, "")}`;
  const segment = joined.split("/")[1] ?? "";
  return segment.startsWith(":") ? RNC_SEGMENT : segment.toLowerCase();
}

describe("the route table", () => {
  it("names every first path segment of every group's routes", async () => {
    const missing: string[] = [];
    let routes = 0;
    for (const group of ROUTE_GROUPS) {
      const router = await group.load();
      for (const route of router.routes) {
        const segment = firstSegment(group.mount, route.path);
        if (segment === "*" || segment === "") continue; // middleware for every path (the receiver's dispatch)
        routes++;
        if (!group.serves.includes(segment)) missing.push(`${route.method} ${group.mount} ${route.path} → ${segment}`);
      }
    }
    expect(routes).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it("serves a group's routes, and a path no group serves is the app's not-found problem", async () => {
    const app = createApp();
    const health = await app.request("/health", {}, env);
    expect(health.status).toBe(200);
    expect(health.headers.get("API-Version")).toBeTruthy();
    expect(health.headers.get("X-Request-Id")).toBeTruthy();
    const nowhere = await app.request("/nowhere/at/all", {}, env);
    expect(nowhere.status).toBe(404);
    expect(((await nowhere.json()) as { code: string }).code).toBe("not_found");
    // A segment some group serves, a path none of them has: the same problem, from the same handler.
    const unknown = await app.request("/reports/nothing-here", {}, env);
    expect([401, 404]).toContain(unknown.status);
  });
});
