import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity } from "@ecf/shared/test-support/certs";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf } from "./support/documents.ts";

// Starts the real server process (as `npm start` does) on a free port and talks to it over HTTP.
let child: ChildProcess;
const port = 18788 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;

beforeAll(async () => {
  child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: { ...process.env, SANDBOX_PORT: String(port), SANDBOX_PROCESSING_MS: "100" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  expect(line.toString()).toContain(`127.0.0.1:${port}`);
});

afterAll(async () => {
  child.kill("SIGTERM");
  await once(child, "exit");
});

describe("sandbox server process", () => {
  it("answers over HTTP", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { service: string; environments: string[] };
    expect(body.service).toBe("dgii-sandbox");
    expect(body.environments).toEqual(["testecf", "certecf", "ecf"]);
  });

  it("takes SANDBOX_PROCESSING_MS from the environment", async () => {
    expect((await control(base, "GET", "/config")).body.processingMs).toBe(100);
  });

  it.each(["testecf", "certecf", "ecf"])(
    "runs the whole exchange in %s: token, e-CF, track id, Aceptado",
    async (env) => {
      const identity = await testIdentity();
      await delegate(base, identity);
      const client = new DgiiClient(base, env);
      const token = await client.login(identity);
      const ecf = await signedEcf(identity, "31", { sequence: 77 });
      const sent = await client.send(ecf.xml, ecf.fileName, token);
      expect(sent.status).toBe(200);
      expect(await client.waitFinal(sent.body.trackId, token)).toMatchObject({ codigo: 1, estado: "Aceptado" });
    },
  );

  it("resets connections while down with reset, and recovers when cleared", async () => {
    await control(base, "POST", "/faults", { mode: "down", reset: true });
    await expect(fetch(`${base}/testecf/autenticacion/api/autenticacion/semilla`)).rejects.toThrow(TypeError);
    await control(base, "DELETE", "/faults");
    expect((await fetch(`${base}/testecf/autenticacion/api/autenticacion/semilla`)).status).toBe(200);
  });
});
