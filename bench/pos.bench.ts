// The POS on the device, in Chromium against the real worker: the time to issue (number, complete,
// serialize, sign with the stored non-extractable key, record) one receipt, as a ratio to the bare
// RSA signature, and the time to sync 500 queued receipts (in batches), as a ratio to a plain API
// round trip; then the rate at which the server's background transmission gets DGII's verdicts
// onto the till.
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { fileURLToPath } from "node:url";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { buildPos, startStack } from "@ecf/pos-client/test-support/pos-stack";
import { percentile, report } from "./lib.ts";

const RECEIPTS = Number(process.env.POS_BENCH_RECEIPTS ?? 500);
/** How long to watch the background transmission after the sync. */
const SETTLE_WINDOW_S = Number(process.env.POS_BENCH_SETTLE_S ?? 60);
const RNC = "131880681";

buildPos();
// Frozen: other work in the tree during the run must not reload the worker under the sync.
const [stack, identity] = await Promise.all([startStack({ frozen: true }), createTestIdentity({ rnc: RNC })]);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
});
try {
  const company = await stack.admin<{ id: string }>("POST", "/admin/companies", {
    name: "BENCH SRL",
    registryNumber: RNC,
    address: "Calle 1",
    dgiiServer: "testecf",
    invoiceLimitPerMonth: 100000,
  });
  const form = new FormData();
  form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  form.set("password", "clave");
  await stack.admin("PUT", `/admin/companies/${company.id}/certificate`, form);
  await registerSigner(stack.sandboxUrl, RNC, [identity.certificatePem]);
  await stack.admin("PUT", `/admin/companies/${company.id}/sequences/32`, {
    rangeFrom: 1,
    rangeTo: 1_000_000,
    expiresOn: "2099-12-31",
  });
  const device = await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Bench",
  });

  const bundle = await build({
    entryPoints: [fileURLToPath(import.meta.resolve("@ecf/pos-client/test-support/bench-page"))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const page = await browser.newPage();
  await page.goto(`${stack.workerUrl}/pos/`);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  type Bench = {
    setup(code: string, n: number): Promise<void>;
    issueMany(n: number): Promise<{ issueMs: number[]; rawSignMs: number[] }>;
    syncAll(): Promise<{ ms: number; sent: number; rejected: number; requests: number; pingMs: number }>;
    settleAll(
      windowMs: number,
    ): Promise<{ ms: number; judged: number; rejected: number; unsettled: number; queries: number }>;
  };
  const bench = <K extends keyof Bench>(name: K, ...args: Parameters<Bench[K]>) =>
    page.evaluate(
      ([n, a]) =>
        (globalThis as unknown as { posBench: Record<string, (...x: unknown[]) => unknown> }).posBench[n as string]!(
          ...(a as unknown[]),
        ),
      [name, args] as const,
    ) as ReturnType<Bench[K]>;

  await bench("setup", device.pairingCode, RECEIPTS);
  const { issueMs, rawSignMs } = await bench("issueMany", RECEIPTS);
  const issueP50 = percentile(issueMs, 50);
  const rawP50 = percentile(rawSignMs, 50);
  report("pos issue+sign per receipt p50 (chromium)", issueP50, "ms");
  report("pos issue+sign per receipt p95 (chromium)", percentile(issueMs, 95), "ms");
  report("pos raw rsa-2048 sign p50 (chromium, reference)", rawP50, "ms");
  report("pos issue+sign / raw sign", issueP50 / rawP50, "x");

  const sync = await bench("syncAll");
  if (sync.sent !== RECEIPTS) throw new Error(`synced ${sync.sent} of ${RECEIPTS} (rejected ${sync.rejected})`);
  report(`pos sync ${RECEIPTS} queued receipts`, sync.ms / 1000, "s");
  report("pos sync uploads", sync.requests, "requests");
  report("pos sync per receipt", sync.ms / RECEIPTS, "ms");
  report("pos api round trip (GET /devices/me, reference)", sync.pingMs, "ms");
  report("pos sync per receipt / round trip", sync.ms / RECEIPTS / sync.pingMs, "x");

  // The ledger sends the receipts to DGII in the background (the month object's alarm, one after
  // another): how fast the till sees DGII's verdicts, within a window so the bench stays short.
  const settled = await bench("settleAll", SETTLE_WINDOW_S * 1000);
  if (settled.rejected) throw new Error(`DGII rejected ${settled.rejected} receipts`);
  report("pos background: judged by DGII and shown on the till", settled.judged / (settled.ms / 1000), "receipts/s");
  if (settled.unsettled === 0) report(`pos background: all ${RECEIPTS} judged, after the sync`, settled.ms / 1000, "s");
  else report(`pos background: judged within ${SETTLE_WINDOW_S} s after the sync`, settled.judged, `of ${RECEIPTS}`);
  report("pos state queries meanwhile", settled.queries, "requests");
} finally {
  await browser.close();
  await stack.stop();
}
