// The sandbox remembers what it received across restarts, as DGII does: the server process is
// killed with SIGKILL and started again on the same state directory (SANDBOX_STATE_DIR).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { testIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf, signedRfce } from "./support/documents.ts";

const stateDirs: string[] = [];
const newStateDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-state-"));
  stateDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await once(child, "exit");
  }
  child = undefined;
});

/** The real server process on a free port, as `npm start` runs it. */
async function startProcess(stateDir: string, port: number): Promise<string> {
  child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_PROCESSING_MS: "50",
      SMTP_PORT: "-1",
      SANDBOX_STATE_DIR: stateDir,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  expect(line.toString()).toContain(`state in ${stateDir}`);
  return `http://127.0.0.1:${port}`;
}

async function kill(): Promise<void> {
  child!.kill("SIGKILL");
  await once(child!, "exit");
}

describe("sandbox state on disk", () => {
  it("after SIGKILL and a restart: the same track ids, results, token, received list, directory and buyer; a resend is a duplicate", async () => {
    const dir = newStateDir();
    const port = 19788 + Math.floor(Math.random() * 1000);
    const identity = await testIdentity();
    let base = await startProcess(dir, port);
    await delegate(base, identity);
    const signers = (await control(base, "GET", "/signers")).body;
    let client = new DgiiClient(base);
    const token = await client.login(identity);
    const ecf = await signedEcf(identity, "31", { sequence: 501 });
    const sent = await client.send(ecf.xml, ecf.fileName, token);
    expect(sent.status).toBe(200);
    expect(await client.waitFinal(sent.body.trackId, token)).toMatchObject({ codigo: 1, estado: "Aceptado" });
    const rfce = await signedRfce(identity, { sequence: 502 });
    expect((await client.postXml("/recepcionfc/api/recepcion/ecf", rfce.xml, rfce.fileName, token)).body).toMatchObject(
      { codigo: 1 },
    );
    const directory = [
      {
        nombre: "Demo",
        rnc: "131880681",
        urlRecepcion: "http://127.0.0.1:1/x",
        urlAceptacion: "http://127.0.0.1:1/y",
        urlOpcional: null,
      },
    ];
    const putDirectory = await control(base, "PUT", "/directory", directory);
    expect(putDirectory.status).toBe(200);
    expect((await control(base, "PUT", "/buyer", { estado: "1", motivo: "4" })).status).toBe(200);
    const before = (await control(base, "GET", "/received")).body as unknown[];
    expect(before.length).toBe(3); // the seed exchange, the e-CF, the RFCE

    await kill();
    base = await startProcess(dir, port);
    client = new DgiiClient(base);

    // The token issued before the restart still opens the services; the track id still answers.
    const result = await client.result(sent.body.trackId, token);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ trackId: sent.body.trackId, codigo: 1, estado: "Aceptado", encf: ecf.encf });
    const rfceState = await client.get(
      `/consultarfce/api/Consultas/Consulta?RNC_Emisor=${rfce.rnc}&ENCF=${rfce.encf}&Cod_Seguridad_eCF=${encodeURIComponent(rfce.securityCode)}`,
      token,
    );
    expect(rfceState.body).toMatchObject({ codigo: "1", estado: "Aceptado", encf: rfce.encf });
    expect((await control(base, "GET", "/received")).body).toEqual(before);
    expect((await control(base, "GET", "/signers")).body).toEqual(signers);
    expect((await control(base, "GET", "/directory")).body).toEqual(putDirectory.body);
    expect((await control(base, "GET", "/buyer")).body).toEqual({ estado: "1", motivo: "4" });

    // Judged against what it received before the restart: the second copy is a duplicate (645).
    const again = await client.send(ecf.xml, ecf.fileName, token);
    const second = await client.waitFinal(again.body.trackId, token);
    expect(second).toMatchObject({ codigo: 2 });
    expect(second.mensajes).toEqual([{ codigo: 645, valor: expect.stringContaining(ecf.encf) }]);
    const copies = (await control(base, "GET", `/received?kind=ecf&encf=${ecf.encf}`)).body as unknown[];
    expect(copies).toHaveLength(2);
  });

  it("an e-CF given a track id but not judged when the sandbox died is judged when it starts again", async () => {
    const dir = newStateDir();
    const identity = await testIdentity();
    let sandbox: RunningSandbox = await startSandbox({ stateDir: dir, processingMs: 0 });
    // Journaled: the restarted sandbox still knows the signer when it judges.
    await delegate(sandbox.url, identity);
    let client = new DgiiClient(sandbox.url);
    const token = await client.login(identity);
    const ecf = await signedEcf(identity, "31", { sequence: 503 });
    const sent = await client.send(ecf.xml, ecf.fileName, token);
    expect(await client.waitFinal(sent.body.trackId, token)).toMatchObject({ codigo: 1 });
    await sandbox.close();

    // The journal as a kill between the track id and the verdict leaves it: no outcome line.
    const journal = join(dir, "journal.jsonl");
    const lines = readFileSync(journal, "utf8").split("\n").filter(Boolean);
    const withoutOutcome = lines.filter((line) => !line.includes('"t":"outcome"'));
    expect(withoutOutcome.length).toBe(lines.length - 1);
    writeFileSync(journal, withoutOutcome.map((line) => `${line}\n`).join(""));

    sandbox = await startSandbox({ stateDir: dir, processingMs: 0 });
    client = new DgiiClient(sandbox.url);
    try {
      expect(await client.waitFinal(sent.body.trackId, token)).toMatchObject({
        codigo: 1,
        estado: "Aceptado",
        encf: ecf.encf,
      });
      // The verdict is written down this time.
      expect(readFileSync(journal, "utf8")).toContain('"t":"outcome"');
    } finally {
      await sandbox.close();
    }
  });

  it("a line torn by the kill is cut off; everything before it stays", async () => {
    const dir = newStateDir();
    const identity = await testIdentity();
    let sandbox = await startSandbox({ stateDir: dir });
    const token = await new DgiiClient(sandbox.url).login(identity);
    await sandbox.close();
    const journal = join(dir, "journal.jsonl");
    const whole = readFileSync(journal, "utf8");
    appendFileSync(journal, '[{"t":"seed","valor":"abc');

    sandbox = await startSandbox({ stateDir: dir });
    try {
      expect(readFileSync(journal, "utf8")).toBe(whole);
      const client = new DgiiClient(sandbox.url);
      const ecf = await signedEcf(identity, "31", { sequence: 504 });
      const sent = await client.send(ecf.xml, ecf.fileName, token);
      expect(sent.status).toBe(200);
      // Judged before the sandbox closes and its state directory goes (a verdict journaled into a
      // removed directory failed the run).
      expect(await client.waitFinal(sent.body.trackId, token)).toHaveProperty("estado");
    } finally {
      await sandbox.close();
    }
  });
});
