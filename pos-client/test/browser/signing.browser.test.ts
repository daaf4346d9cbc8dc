// Signing in Chromium: the key imported non-extractable, stored in IndexedDB and read back, the
// e-CF signed in the page; the result checked in Node by xmlsec1 and against Node's own signature
// (RSA PKCS#1 v1.5 is deterministic, so the documents must be identical).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ecfToXml } from "@ecf/shared/xml/serialize";
import { signEcfXml } from "@ecf/shared/signing/fast-signer";
import { importSigningKey } from "@ecf/shared/signing/key-at-rest";
import { verifyXml } from "@ecf/shared/signing/verify";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { createTestIdentity, xmlsecVerify, type TestIdentity } from "@ecf/shared/test-support/certs";
import { servePage, type ServedPage } from "./support/serve-bundle.ts";
import type { PageResult } from "./support/signing-page.ts";

execFileSync(
  "node",
  [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium", "xmlsec1"],
  { stdio: "inherit" },
);

let browser: Browser;
let page: ServedPage;
let id: TestIdentity;

beforeAll(async () => {
  id = await createTestIdentity({ rnc: "130862346", commonName: "TIENDA DE PRUEBA SRL" });
  page = await servePage(fileURLToPath(new URL("./support/signing-page.ts", import.meta.url)));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
});

afterAll(async () => {
  await browser?.close();
  await page?.close();
});

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("signing in Chromium", () => {
  it.each([
    ["E31 with text needing escapes", () => ecfToXml(makeEcf("31", { trickyText: true }))],
    ["E32, 50 lines", () => ecfToXml(makeEcf("32", { lines: 50 }))],
  ])("%s: key from IndexedDB, accepted by xmlsec1, identical to Node", async (_name, make) => {
    const xml = make();
    const tab = await browser.newPage();
    try {
      await tab.goto(page.url);
      await tab.waitForFunction(() => typeof (globalThis as { signInPage?: unknown }).signInPage === "function");
      const result = await tab.evaluate(
        ([pkcs8, cert, doc]) =>
          (
            globalThis as unknown as { signInPage: (a: string, b: string, c: string) => Promise<PageResult> }
          ).signInPage(pkcs8, cert, doc),
        [b64(id.pkcs8), b64(id.certificateDer), xml] as const,
      );
      expect(result.userAgent).toMatch(/Chrome/);
      expect(result.storedKey).toEqual({
        type: "private",
        extractable: false,
        usages: ["sign"],
        algorithm: "RSASSA-PKCS1-v1_5",
      });
      expect(result.exportRefused).toBe(true);
      expect(result.verifiedInPage).toBe(true);

      expect(xmlsecVerify(result.signed, id.certificatePem)).toEqual({ ok: true, output: "" });
      expect(await verifyXml(result.signed)).toMatchObject({ ok: true, certificate: { holderId: "130862346" } });
      expect(result.signed).toBe(await signEcfXml(xml, await importSigningKey(id.pkcs8), id.certificateDer));
    } finally {
      await tab.close();
    }
  });
});
