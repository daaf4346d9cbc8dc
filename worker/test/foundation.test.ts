import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { companies } from "../src/db/tables.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { createApp } from "../src/app.ts";
import { newRouter } from "../src/http/router.ts";
import { call } from "./support/http.ts";

// The real app plus one JSON route (on the API's own OpenAPI router, as every route group is), to
// exercise the shared validation and error paths.
const echo = newRouter();
echo.openapi(
  createRoute({
    method: "post",
    path: "/__echo",
    request: {
      body: {
        content: {
          "application/json": {
            schema: z.object({ name: z.string(), items: z.array(z.object({ qty: z.number() })) }),
          },
        },
      },
    },
    responses: { 200: { description: "echo" } },
  }),
  (c) => c.json(c.req.valid("json"), 200),
);
const app = createApp().route("/", echo);
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(
    path,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    env,
  );

describe("problem documents", () => {
  it("an unknown route is a 404 problem with the request id", async () => {
    const res = await call("/no/such/route", { headers: { "X-Request-Id": "req-unknown-1" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.headers.get("x-request-id")).toBe("req-unknown-1");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 404, code: "not_found", requestId: "req-unknown-1", title: "Not found" });
    expect(body.type).toMatch(/not-found$/);
    expect(body.errors).toEqual([]);
  });

  it("a request id is generated when the client sends none", async () => {
    const res = await call("/nothing-here");
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await res.json()) as { requestId: string }).requestId).toBe(id);
  });

  it("a malformed JSON body is a 400 problem, never a 500", async () => {
    const res = await postJson("/__echo", '{"Encabezado": {', { "X-Request-Id": "req-bad-json" });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as { code: string; requestId: string; errors: { path: string }[] };
    expect(body.code).toBe("malformed_json");
    expect(body.requestId).toBe("req-bad-json");
    expect(body.errors[0]?.path).toBe("");
  });

  it("a body that breaks the schema lists each problem with its JSON pointer", async () => {
    const res = await postJson("/__echo", { name: 5, items: [{ qty: "x" }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; errors: { path: string }[] };
    expect(body.code).toBe("validation_failed");
    expect(body.errors.map((e) => e.path).sort()).toEqual(["/items/0/qty", "/name"]);
  });

  it("an oversized body is a 413 problem", async () => {
    const res = await postJson("/__echo", JSON.stringify({ name: "x".repeat(3 * 1024 * 1024), items: [] }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
  });

  it("a valid body passes through the same stack", async () => {
    const res = await postJson("/__echo", { name: "ok", items: [{ qty: 1 }] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "ok", items: [{ qty: 1 }] });
  });

  it("the API version is in every response", async () => {
    for (const path of ["/health", "/nope"]) {
      const res = await call(path);
      expect(res.headers.get("api-version")).toBe("1.12.0");
    }
  });

  it("secure headers are set", async () => {
    const res = await call("/health");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  });
});

describe("service routes", () => {
  it("GET /health answers 200 JSON and checks the database", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", version: "1.12.0", database: "ok" });
  });

  it("GET /openapi.json is an OpenAPI 3 document listing /health", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe("1.12.0");
    expect(Object.keys(doc.paths)).toContain("/health");
  });

  it("GET /openapi.json names every operation once, names its server, and declares Retry-After on every 429 and 503", async () => {
    type Op = { operationId?: string; responses?: Record<string, { headers?: Record<string, unknown> }> };
    const doc = (await (await call("/openapi.json")).json()) as {
      servers: { url: string }[];
      paths: Record<string, Record<string, Op>>;
    };
    expect(doc.servers).toEqual([expect.objectContaining({ url: "http://ecf.test" })]); // the origin the test calls
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(40);
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      operations.find((o) => o.path === "/fe/recepcion/ecf/{encf}/pdf" && o.method === "get")?.op.operationId,
    ).toBe("getFeRecepcionEcfByEncfPdf");
    for (const { path, method, op } of operations) {
      for (const status of ["429", "503"]) {
        if (op.responses?.[status])
          expect(op.responses[status].headers?.["Retry-After"], `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it("GET /docs is an HTML page that loads the OpenAPI document", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("/openapi.json");
  });
});

describe("storage bindings", () => {
  it("migrations are applied and drizzle reads and writes D1", async () => {
    const db = drizzle(env.DB);
    await db.insert(companies).values({ id: "c-found-1", legalName: "Foundation SRL", rnc: "101000001" });
    const rows = await db.select().from(companies).where(eq(companies.rnc, "101000001"));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ legalName: "Foundation SRL", isActive: true, dgiiEnvironment: "testecf" });
  });

  it("R2 stores and returns bytes exactly", async () => {
    const bytes = new TextEncoder().encode("<ECF>ñ & €</ECF>");
    await env.ARCHIVE.put("101000001/2026/11/E310000000001.xml", bytes);
    const object = await env.ARCHIVE.get("101000001/2026/11/E310000000001.xml");
    expect(object).not.toBeNull();
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytes);
  });
});
