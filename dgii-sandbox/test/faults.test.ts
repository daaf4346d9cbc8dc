// Fault switches, the status service that reports them, and the received listing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { createSandboxApp } from "../src/app.ts";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf, signedRfce } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let client: DgiiClient;
let token: string;
let sequence = 900;
const next = () => ++sequence;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0, processingMs: 50 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  client = new DgiiClient(sandbox.url);
  token = await client.login(identity);
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await control(sandbox.url, "DELETE", "/faults");
  await control(sandbox.url, "DELETE", "/received");
});

const query = () => client.result("any", token);

describe("fault switches", () => {
  it.each([
    ["down", { mode: "down" }, 503],
    ["down with another 5xx", { mode: "down", status: 502 }, 502],
  ])("%s: every DGII endpoint fails, until cleared", async (_, fault, status) => {
    expect((await control(sandbox.url, "POST", "/faults", fault)).status).toBe(200);
    const calls = [
      query(),
      client.get("/autenticacion/api/autenticacion/semilla"),
      client.send("<ECF/>", "x.xml", token),
    ];
    for (const response of await Promise.all(calls)) expect(response.status).toBe(status);
    expect((await control(sandbox.url, "DELETE", "/faults")).status).toBe(200);
    expect((await query()).status).toBe(200);
  });

  it("down can be limited to some services", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "down", services: ["recepcion"] });
    expect((await client.send("<ECF/>", "x.xml", token)).status).toBe(503);
    expect((await query()).status).toBe(200);
  });

  it("down with reset drops the connection", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "down", reset: true });
    const error = await query().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as { cause?: unknown }).cause)).toMatch(/ECONNRESET|socket|closed/i);
    await control(sandbox.url, "DELETE", "/faults");
    expect((await query()).status).toBe(200);
  });

  it("slow answers after delayMs", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "slow", delayMs: 400 });
    const started = Date.now();
    expect((await query()).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it("flaky every Nth fails exactly every Nth request", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "flaky", every: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await query()).status);
    expect(statuses).toEqual([200, 200, 503, 200, 200, 503, 200, 200, 503]);
  });

  it("flaky with a rate and a seed fails about that share, the same way every run", async () => {
    const run = async () => {
      await control(sandbox.url, "POST", "/faults", { mode: "flaky", rate: 0.3, seed: 42, status: 500 });
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await query()).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(30);
    expect(first.every((s) => s === 200 || s === 500)).toBe(true);
  });

  it("reject: the next count receptions are rejected with the given code and message", async () => {
    await control(sandbox.url, "POST", "/faults", {
      mode: "reject",
      count: 2,
      code: 1930,
      message: "Rechazo de prueba",
    });
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const ecf = await signedEcf(identity, "31", { sequence: next() });
      outcomes.push(await client.waitFinal((await client.send(ecf.xml, ecf.fileName, token)).body.trackId, token));
    }
    expect(outcomes.map((o) => [o.codigo, o.mensajes])).toEqual([
      [2, [{ codigo: 1930, valor: "Rechazo de prueba" }]],
      [2, [{ codigo: 1930, valor: "Rechazo de prueba" }]],
      [1, []],
    ]);
  });

  it("reject also applies to RFCE, and can free the number", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "reject", code: 615, secuenciaUtilizada: false });
    const rfce = await signedRfce(identity, { sequence: next() });
    const { body } = await client.postXml("/recepcionfc/api/recepcion/ecf", rfce.xml, rfce.fileName, token);
    expect(body).toMatchObject({ codigo: 2, secuenciaUtilizada: false, mensajes: [{ codigo: 615 }] });
  });

  it("logs every DGII request with the fault that shaped it", async () => {
    await control(sandbox.url, "DELETE", "/requests");
    await control(sandbox.url, "POST", "/faults", { mode: "flaky", every: 2, services: ["consultaresultado"] });
    for (let i = 0; i < 3; i++) await query();
    await control(sandbox.url, "POST", "/faults", { mode: "down", reset: true, services: ["consultatrackids"] });
    await client
      .get("/consultatrackids/api/trackids/consulta?rncemisor=130862346&encf=E310000000001", token)
      .catch(() => null);
    const log = (await control(sandbox.url, "GET", "/requests")).body;
    expect(
      log.map((r: { service: string; status: number | null; fault: string | null }) => [r.service, r.status, r.fault]),
    ).toEqual([
      ["consultaresultado", 200, null],
      ["consultaresultado", 503, "flaky"],
      ["consultaresultado", 200, null],
      ["consultatrackids", null, "reset"],
    ]);
    expect((await control(sandbox.url, "GET", "/requests?service=consultatrackids")).body).toHaveLength(1);
  });

  it.each([
    [{ mode: "sideways" }, /mode/],
    [{ mode: "slow" }, /delayMs/],
    [{ mode: "flaky" }, /exactly one/],
    [{ mode: "flaky", rate: 2 }, /rate/],
    [{ mode: "down", status: 200 }, /5xx/],
    [{ mode: "reject" }, /code/],
  ])("refuses the fault %j", async (fault, message) => {
    const { status, body } = await control(sandbox.url, "POST", "/faults", fault);
    expect(status).toBe(400);
    expect(body.error).toMatch(message);
  });

  it("lists the active faults", async () => {
    await control(sandbox.url, "POST", "/faults", { mode: "slow", delayMs: 1 });
    await control(sandbox.url, "POST", "/faults", { mode: "reject", code: 9, count: 3 });
    expect((await control(sandbox.url, "GET", "/faults")).body.map((f: { mode: string }) => f.mode)).toEqual([
      "slow",
      "reject",
    ]);
  });
});

describe("status service", () => {
  const status = (path: string, apikey = true) =>
    fetch(`${sandbox.url}/api/estatusservicios/${path}`, {
      headers: apikey ? { authorization: "Apikey prueba-123" } : {},
    });

  it("obtenerestatus lists every service per environment, and a down fault", async () => {
    const before = (await (await status("obtenerestatus")).json()) as {
      servicio: string;
      estatus: string;
      ambiente: string;
    }[];
    expect(before).toHaveLength(27);
    expect(before.every((s) => s.estatus === "Disponible")).toBe(true);
    expect(before).toContainEqual({ servicio: "Recepción FC", estatus: "Disponible", ambiente: "Produccion" });

    await control(sandbox.url, "POST", "/faults", { mode: "down", services: ["recepcion"] });
    const after = (await (await status("obtenerestatus")).json()) as { servicio: string; estatus: string }[];
    expect(new Set(after.filter((s) => s.estatus === "No Disponible").map((s) => s.servicio))).toEqual(
      new Set(["Recepción"]),
    );
  });

  it.each([
    ["1", false, "Disponible"],
    ["2", true, "No Disponible"],
  ])("verificarestado?ambiente=%s (down: %s)", async (ambiente, down, estado) => {
    if (down) await control(sandbox.url, "POST", "/faults", { mode: "down" });
    expect(await (await status(`verificarestado?ambiente=${ambiente}`, false)).json()).toEqual({ estado });
  });

  it("obtenerventanasmantenimiento answers the windows", async () => {
    const body = (await (await status("obtenerventanasmantenimiento")).json()) as {
      ventanaMantenimientos: { ambiente: string }[];
    };
    expect(body.ventanaMantenimientos.map((v) => v.ambiente)).toEqual([
      "PreCertificacion",
      "Produccion",
      "Certificacion",
    ]);
  });

  it.each(["obtenerestatus", "obtenerventanasmantenimiento"])("%s requires an Apikey", async (path) => {
    expect((await status(path, false)).status).toBe(401);
  });
});

describe("received listing", () => {
  it("lists what was received, filterable, with live outcomes; DELETE forgets it", async () => {
    const a = await signedEcf(identity, "31", { sequence: next() });
    const b = await signedEcf(identity, "33", { sequence: next() });
    const sentA = await client.send(a.xml, a.fileName, token);
    await client.send(b.xml, b.fileName, token);

    const all = (await control(sandbox.url, "GET", "/received")).body;
    expect(all.map((e: { encf: string }) => e.encf)).toEqual([a.encf, b.encf]);
    const onlyA = (await control(sandbox.url, "GET", `/received?rnc=${a.rnc}&encf=${a.encf}`)).body;
    expect(onlyA).toEqual([
      {
        kind: "ecf",
        env: "testecf",
        rnc: a.rnc,
        encf: a.encf,
        trackId: sentA.body.trackId,
        fileName: a.fileName,
        outcome: expect.objectContaining({ estado: expect.any(String) }),
        receivedAt: expect.any(String),
      },
    ]);
    await client.waitFinal(sentA.body.trackId, token);
    expect((await control(sandbox.url, "GET", `/received?encf=${a.encf}`)).body[0].outcome).toMatchObject({
      codigo: 1,
      estado: "Aceptado",
    });

    await control(sandbox.url, "DELETE", "/received");
    expect((await control(sandbox.url, "GET", "/received")).body).toEqual([]);
    expect((await client.result(sentA.body.trackId, token)).body.codigo).toBe(0);
    // Sessions survive the reset.
    expect((await query()).status).toBe(200);
  });
});

describe("faults under app.request() (no socket)", () => {
  it.each([
    [{ mode: "down" }, 503],
    [{ mode: "down", reset: true }, "throws"],
  ] as const)("%j", async (fault, expected) => {
    const app = createSandboxApp();
    await app.request("/__sandbox/faults", {
      method: "POST",
      body: JSON.stringify(fault),
      headers: { "content-type": "application/json" },
    });
    const call = app.request("/testecf/autenticacion/api/autenticacion/semilla");
    if (expected === "throws") await expect(call).rejects.toThrow(/connection reset/);
    else expect((await call).status).toBe(expected);
  });
});
