// `npm start` as a developer runs it: `node scripts/start.mjs`, beside any copy already running
// (its own ports and state dir). It must print both URLs, serve /health, /docs and a valid
// OpenAPI 3 document, run the DGII sandbox, and on Ctrl-C (SIGINT) stop every process it started
// and free its ports.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib.mjs";
import { alive, argvOf, commandOf, descendants, portFree } from "./support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const state = mkdtempSync(join(tmpdir(), "ecf-start-"));
let ports: { worker: number; sandbox: number; inspector: number };
let start: ChildProcess;
let output = "";
let urls: { worker: string; sandbox: string };
/** What npm start printed up to the end of its banner, before any request of these tests. */
let firstScreen = "";

beforeAll(async () => {
  ports = { worker: await freePort(), sandbox: await freePort(), inspector: await freePort() };
  start = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(ports.worker),
      SANDBOX_PORT: String(ports.sandbox),
      INSPECTOR_PORT: String(ports.inspector),
      ECF_STATE_DIR: state,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  start.stdout!.on("data", (d) => (output += d));
  start.stderr!.on("data", (d) => (output += d));
  const until = Date.now() + 240_000;
  while (!output.includes("Press Ctrl-C to stop.")) {
    if (start.exitCode !== null) throw new Error(`npm start exited (${start.exitCode}):\n${output}`);
    if (Date.now() > until) throw new Error(`npm start printed no URLs within 240 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  firstScreen = output.slice(0, output.indexOf("Press Ctrl-C to stop.") + "Press Ctrl-C to stop.".length);
  urls = {
    worker: output.match(/API worker\s+(http:\S+)/)![1]!,
    sandbox: output.match(/DGII sandbox\s+(http:\S+)/)![1]!,
  };
}, 300_000);

afterAll(() => {
  if (start && start.exitCode === null) start.kill("SIGKILL");
  rmSync(state, { recursive: true, force: true });
});

describe("npm start", () => {
  it("prints the worker and sandbox URLs on the ports it was given", () => {
    expect(urls).toEqual({ worker: `http://127.0.0.1:${ports.worker}`, sandbox: `http://127.0.0.1:${ports.sandbox}` });
  });

  it("prints wrangler's table of the build's modules as one line, no row per module", () => {
    expect(output).toMatch(/Attaching additional modules: \d+ modules, [\d.]+ KiB/);
    expect(output).not.toMatch(/\.chunk\.js/);
  });

  it("prints one screen before the first request: every URL and every demo login", () => {
    const lines = firstScreen.split("\n");
    expect(lines.length, firstScreen).toBeLessThanOrEqual(40);
    const saved = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8"));
    for (const shown of [
      `${urls.worker}/docs`,
      `${urls.worker}/app/`,
      `${urls.worker}/pos/`,
      urls.sandbox,
      saved.company.apiKey,
      saved.company.apiSecret,
      "dueno@demo.do",
      "demo-dueno-1234",
      "PIN 123456",
    ])
      expect(firstScreen).toContain(shown);
    // Not wrangler's table of bindings (every variable's value), nor the migrations' tables.
    expect(firstScreen).not.toMatch(/env\.[A-Z_]+ \(|Environment Variable|0000_accounts\.sql|Binding\s+Resource/);
    // Nor the seed's requests: the lines of requests begin after the banner.
    expect(firstScreen).not.toMatch(/\[wrangler:info\] (GET|HEAD|POST|PUT) /);
  });

  it("says in its banner how long /health took, and the version /health and the OpenAPI document give", async () => {
    const [, version, seconds] = /ecf-edge (\S+) is running \(\/health answered ([\d.]+) s after the start\)/.exec(
      firstScreen,
    )!;
    expect(Number(seconds)).toBeGreaterThan(0);
    const health = await fetch(`${urls.worker}/health`);
    expect(await health.json()).toMatchObject({ version });
    expect(health.headers.get("api-version")).toBe(version);
    const doc = (await (await fetch(`${urls.worker}/openapi.json`)).json()) as { info: { version: string } };
    expect(doc.info.version).toBe(version);
  });

  it("adds one line per request, a refused one included, and none for a health probe", async () => {
    const mark = output.length;
    const refused = await fetch(`${urls.worker}/fe/recepcion/ecf`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer a.b.c" },
      body: JSON.stringify({ Encabezado: {} }),
    });
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
    // As the supervisor probes it every 2 s.
    const probe = await fetch(`${urls.worker}/health`, { method: "HEAD" });
    expect(probe.status).toBe(200);
    const docs = await fetch(`${urls.worker}/docs`);
    await docs.arrayBuffer();
    await until(
      () => /GET \/docs 200/.test(output.slice(mark)),
      30_000,
      () => output.slice(mark),
    );
    const lines = output.slice(mark).trimEnd().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/POST \/fe\/recepcion\/ecf 401 Unauthorized/),
      expect.stringMatching(/GET \/docs 200 OK/),
    ]);
  });

  it("serves GET /health as 200 JSON", async () => {
    const res = await fetch(`${urls.worker}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("api-version")).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await res.json()).toMatchObject({ status: "ok", database: "ok" });
  });

  it("serves the API reference at /docs as HTML", async () => {
    const res = await fetch(`${urls.worker}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/<html[\s>]/i);
  });

  it("serves /openapi.json, valid against the OpenAPI 3 JSON schema", async () => {
    const res = await fetch(`${urls.worker}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(String(doc.openapi)).toMatch(/^3\./);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths as object)).toEqual(
      expect.arrayContaining(["/health", "/fe/recepcion/ecf", "/fe/recepcion/ecf/{encf}"]),
    );
  });

  it("/openapi.json declares every path parameter of every operation, and only those", async () => {
    const doc = (await (await fetch(`${urls.worker}/openapi.json`)).json()) as OpenApi;
    expect(undeclaredPathParameters(doc)).toEqual([]);
  });

  it("runs the DGII sandbox", async () => {
    const res = await fetch(`${urls.sandbox}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ service: "dgii-sandbox" });
    const seed = await fetch(`${urls.sandbox}/testecf/autenticacion/api/autenticacion/semilla`);
    expect(seed.status).toBe(200);
    expect(await seed.text()).toContain("<SemillaModel");
  });

  it("seeds the demo data into its own state dir", () => {
    const saved = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8"));
    expect(saved.company).toMatchObject({ rnc: "131880681", apiKey: expect.any(String) });
  });

  it("runs the README's quickstart verbatim: login, an E32 issued and judged, its state, its PDF", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Quickstart"),
      readme.indexOf("\n## ", readme.indexOf("## Quickstart") + 1),
    );
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, "a sh block under ## Quickstart").toBeTruthy();
    // Asynchronously: npm start's output keeps flowing into this process meanwhile.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const shell = spawn("bash", ["-euo", "pipefail", "-c", block!], {
        cwd: root,
        env: { ...process.env, WORKER_URL: urls.worker, ECF_STATE_DIR: state },
      });
      let stdout = "";
      let stderr = "";
      shell.stdout.on("data", (d) => (stdout += d));
      shell.stderr.on("data", (d) => (stderr += d));
      shell.on("close", (status) => done({ status, stdout, stderr }));
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    // Its lines: the issuing answer, the state answer, "saved <e-NCF>.pdf".
    const [answerLine, stateLine, savedLine] = run.stdout.trim().split("\n");
    const answer = JSON.parse(answerLine!) as { encf: string; estado: string; codigoSeguridad: string };
    expect(answer.encf).toMatch(/^E32\d{10}$/);
    expect(["Aceptado", "En Proceso"]).toContain(answer.estado);
    const state_ = JSON.parse(stateLine!) as { encf: string; estado: string };
    expect(state_.encf).toBe(answer.encf);
    expect(savedLine).toBe(`saved ${answer.encf}.pdf`);
    const pdf = join(root, `${answer.encf}.pdf`);
    try {
      expect(readFileSync(pdf).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    } finally {
      rmSync(pdf, { force: true });
    }
  }, 150_000);

  it("prints a till-pairing command that works as printed, on this copy's port", () => {
    const command = /pair a till: (WORKER_URL=\S+ npm run admin -- devices:create [^;]+);/.exec(output)?.[1];
    expect(command, output).toContain(`WORKER_URL=${urls.worker} `);
    const run = spawnSync("bash", ["-c", command!], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, WORKER_URL: "" },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('"pairingCode"');
  }, 60_000);

  it("when workerd dies, says so and restarts it by itself; a dead sandbox likewise", async () => {
    const workerd = descendants(start.pid!).filter((pid) => commandOf(pid) === "workerd");
    expect(workerd.length).toBeGreaterThan(0);
    const before = output.length;
    for (const pid of workerd) process.kill(pid, "SIGKILL");
    await until(
      () => output.slice(before).includes("[worker] answering again"),
      180_000,
      () => output.slice(before),
    );
    expect(output.slice(before)).toMatch(/\[worker\] stopped answering at \S+\/health: restarting it/);
    const health = await fetch(`${urls.worker}/health`);
    expect(health.status).toBe(200);
    // The demo credentials still log in: the restarted worker serves the same state.
    const { company } = JSON.parse(readFileSync(join(state, "demo-credentials.json"), "utf8"));
    const login = await fetch(`${urls.worker}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(company),
    });
    expect(login.status).toBe(200);

    const sandboxPid = descendants(start.pid!).find(
      (pid) => /(^|\/)node$/.test(argvOf(pid)[0] ?? "") && argvOf(pid).some((arg) => /dgii-sandbox/.test(arg)),
    );
    expect(sandboxPid).toBeDefined();
    const mark = output.length;
    process.kill(sandboxPid!, "SIGKILL");
    await until(
      () => output.slice(mark).includes("[sandbox] answering again"),
      120_000,
      () => output.slice(mark),
    );
    expect(output.slice(mark)).toMatch(/\[sandbox\] its process exited \(SIGKILL\): restarting it/);
    expect((await fetch(`${urls.sandbox}/`)).status).toBe(200);
  }, 320_000);

  it("stops every process it started on Ctrl-C (SIGINT) and frees its ports", async () => {
    const started = descendants(start.pid!);
    // The sandbox (node) and wrangler dev with its workerd, at least.
    expect(started.length).toBeGreaterThanOrEqual(3);
    const exited = new Promise<number | null>((done) => start.once("exit", (code) => done(code)));
    start.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(started.filter(alive)).toEqual([]);
    for (const port of Object.values(ports)) expect(await portFree(port), `port ${port}`).toBe(true);
  }, 60_000);
});

/** Resolves once `done()` holds; fails after `ms` with what `context()` says. */
async function until(done: () => boolean, ms: number, context: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s:\n${context()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  $ref?: string;
}
interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Parameter[] } | Parameter[]>>;
  components?: { parameters?: Record<string, Parameter> };
}
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** "METHOD /path: problem" for each `{param}` not declared as a required path parameter, or declared but absent. */
function undeclaredPathParameters(doc: OpenApi): string[] {
  const resolveRef = (p: Parameter) =>
    p.$ref ? (doc.components?.parameters?.[p.$ref.replace("#/components/parameters/", "")] ?? p) : p;
  const problems: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const shared = ((item.parameters as Parameter[] | undefined) ?? []).map(resolveRef);
    for (const method of METHODS) {
      const op = item[method] as { parameters?: Parameter[] } | undefined;
      if (!op) continue;
      const declared = [...shared, ...(op.parameters ?? []).map(resolveRef)].filter((p) => p.in === "path");
      for (const name of inTemplate) {
        const p = declared.find((d) => d.name === name);
        if (!p) problems.push(`${method.toUpperCase()} ${path}: {${name}} not declared`);
        else if (p.required !== true) problems.push(`${method.toUpperCase()} ${path}: {${name}} not required`);
      }
      for (const p of declared)
        if (!inTemplate.includes(p.name))
          problems.push(`${method.toUpperCase()} ${path}: path parameter ${p.name} not in the path`);
    }
  }
  return problems;
}
