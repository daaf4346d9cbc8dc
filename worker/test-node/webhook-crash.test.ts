// Webhooks survive a crash: receipts are accepted while the integrator's endpoint fails, the
// worker (wrangler dev and its workerd) is killed with SIGKILL while an attempt waits on the
// endpoint, and after a restart on the same local state every event reaches the endpoint, verified
// by the standardwebhooks package, once per event id at least, nobody asking.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type RunningSandbox } from "@ecf/dgii-sandbox/start";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { setUpIssuer } from "../../scripts/certify-lib/issuer.ts";
import {
  applyMigrations,
  freePort,
  freshSecrets,
  root,
  waitForUrl,
  wranglerBin,
  wranglerDevArgs,
  wranglerEnv,
} from "../../scripts/lib.mjs";

interface Received {
  id: string;
  type: string;
  encf: string;
  verified: boolean;
}

let persist: string;
let sandbox: RunningSandbox;
let sink: Server;
let sinkUrl: string;
let worker: ChildProcess | undefined;
let port: number;
const secrets = freshSecrets();
const received: Received[] = [];
let secret = "";
/** The endpoint's status, or "hold": the request is kept waiting (the worker dies before it is answered). */
let answer: number | "hold" = 500;
const held: ServerResponse[] = [];
let workerOutput = "";

function startWorker(): ChildProcess {
  // Its own process group, so a SIGKILL to the group takes wrangler and workerd down at once, mid-work.
  const child = spawn(
    wranglerBin,
    wranglerDevArgs({ port, persistTo: persist, vars: { ...secrets, DGII_SANDBOX_URL: sandbox.url, SMTP_PORT: "1" } }),
    {
      cwd: root,
      env: wranglerEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // Kept to explain a start that fails.
  const keep = (d: Buffer) => void (workerOutput = (workerOutput + d).slice(-5000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return child;
}

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "ecf-webhook-crash-"));
  applyMigrations(persist, { quiet: true });
  sandbox = await startSandbox({ processingMs: 50 });
  sink = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = {
      "webhook-id": String(req.headers["webhook-id"]),
      "webhook-timestamp": String(req.headers["webhook-timestamp"]),
      "webhook-signature": String(req.headers["webhook-signature"]),
    };
    let verified = false;
    try {
      new Webhook(secret).verify(body, headers);
      verified = true;
    } catch {
      verified = false;
    }
    const event = JSON.parse(body) as { type: string; data: { encf: string } };
    received.push({ id: headers["webhook-id"], type: event.type, encf: event.data.encf, verified });
    if (answer === "hold") held.push(res);
    else res.writeHead(answer).end();
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}/hook`;
  port = await freePort();
  worker = startWorker();
  await waitForUrl(`http://127.0.0.1:${port}/health`, { timeoutMs: 120_000, child: worker }).catch((error: Error) => {
    throw new Error(`${error.message}\n${workerOutput}`);
  });
}, 180_000);

afterAll(async () => {
  if (worker?.pid) process.kill(-worker.pid, "SIGKILL");
  await sandbox?.close();
  sink?.close();
  if (persist) rmSync(persist, { recursive: true, force: true });
});

describe("webhooks across a crash", () => {
  it("events pending when the worker is killed are all delivered after the restart", async () => {
    const base = `http://127.0.0.1:${port}`;
    const identity = await createTestIdentity({ rnc: "131880681", commonName: "EMISORA SRL" });
    const setup = await setUpIssuer(
      base,
      secrets.ADMIN_SECRET,
      { rnc: "131880681", legalName: "Emisora SRL", address: "Calle 1", dgiiEnvironment: "testecf" },
      { p12: forgeP12(identity, "clave"), password: "clave" },
      [{ tipo: "32", rangeFrom: 1, rangeTo: 1000, expiresOn: "2030-12-31" }],
      { url: sandbox.url, certificatePem: identity.certificatePem },
    );
    const { token } = (await (
      await fetch(`${base}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ apiKey: setup.apiKey, apiSecret: setup.apiSecret }),
      })
    ).json()) as { token: string };
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const endpoint = (await (
      await fetch(`${base}/webhooks`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: sinkUrl, events: ["receipt.accepted"] }),
      })
    ).json()) as {
      secret: string;
    };
    secret = endpoint.secret;

    const encfs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const request = structuredClone(makeEcf("32", { sequence: i + 1 })) as Record<string, any>;
      delete request.Encabezado.Emisor;
      delete request.Encabezado.IdDoc.eNCF;
      delete request.FechaHoraFirma;
      const answered = (await (
        await fetch(`${base}/fe/recepcion/ecf`, { method: "POST", headers: auth, body: JSON.stringify(request) })
      ).json()) as {
        encf: string;
        estado: string;
      };
      expect(answered.estado).toBe("Aceptado");
      encfs.push(answered.encf);
    }
    // The endpoint refuses: every event is tried at least once and stays pending.
    for (let i = 0; i < 60 && new Set(received.map((r) => r.encf)).size < encfs.length; i++)
      await new Promise((r) => setTimeout(r, 250));
    expect(new Set(received.map((r) => r.encf))).toEqual(new Set(encfs));

    // The next attempt is kept waiting, and the worker dies during it: its task dies claimed, and
    // must not wait for that claim to lapse (minutes) after the restart.
    answer = "hold";
    const tried = received.length;
    for (let i = 0; i < 60 && received.length === tried; i++) await new Promise((r) => setTimeout(r, 250));
    expect(received.length).toBeGreaterThan(tried);

    // Crash: the whole worker process group, at once.
    process.kill(-worker!.pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 500));
    for (const res of held.splice(0)) res.destroy();
    answer = 204;
    const before = received.length;
    worker = startWorker();
    await waitForUrl(`${base}/health`, { timeoutMs: 120_000, child: worker }).catch((error: Error) => {
      throw new Error(`${error.message}\n${workerOutput}`);
    });

    // Nobody asks: the month object's alarm resumes the deliveries (back-off of a few seconds).
    const delivered = () => new Set(received.filter((r, i) => i >= before && r.verified).map((r) => r.encf));
    for (let i = 0; i < 120 && delivered().size < encfs.length; i++) await new Promise((r) => setTimeout(r, 500));
    expect(delivered()).toEqual(new Set(encfs));
    expect(received.every((r) => r.verified && r.type === "receipt.accepted")).toBe(true);
    // One event id per receipt, however many attempts it took.
    const idsPerReceipt = new Map<string, Set<string>>();
    for (const r of received) idsPerReceipt.set(r.encf, (idsPerReceipt.get(r.encf) ?? new Set()).add(r.id));
    expect([...idsPerReceipt.values()].every((ids) => ids.size === 1)).toBe(true);
  }, 240_000);
});
