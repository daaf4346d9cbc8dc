// The sandbox's own signing identity, for the documents it answers or sends as a simulated taxpayer
// (ARECF from the emisor-receptor, the simulator's seeds and ACECF). A throwaway RSA-2048 key made
// by the openssl CLI at first use, its certificate issued by the sandbox's demo CA (demo-ca/) so a
// receiver that checks the chain (ours does) trusts it as it trusts the demo issuers; tests may
// inject one instead.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface SandboxSigner {
  key: CryptoKey;
  certificateDer: Uint8Array;
}

const run = promisify(execFile);

function pemBody(pem: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""), "base64"));
}

/** RNC the certificate's serialNumber carries: DGII's own RNC, as its simulator would sign. */
export const SANDBOX_SIGNER_RNC = "401507449";

const DEMO_CA_DIR = join(import.meta.dirname, "../demo-ca");

export async function createDemoSigner(): Promise<SandboxSigner> {
  const dir = await mkdtemp(join(tmpdir(), "dgii-sandbox-"));
  try {
    const keyPath = join(dir, "key.pem");
    const requestPath = join(dir, "request.csr");
    const certPath = join(dir, "cert.pem");
    await run("openssl", [
      "req",
      "-new",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-sha256",
      "-keyout",
      keyPath,
      "-out",
      requestPath,
      "-subj",
      `/C=DO/O=DGII SANDBOX/serialNumber=RNC ${SANDBOX_SIGNER_RNC}/CN=DGII SANDBOX EMISOR RECEPTOR`,
    ]);
    await run("openssl", [
      "x509",
      "-req",
      "-sha256",
      "-days",
      "3650",
      "-in",
      requestPath,
      "-CA",
      join(DEMO_CA_DIR, "demo-ca.cert.pem"),
      "-CAkey",
      join(DEMO_CA_DIR, "demo-ca.key.pem"),
      "-set_serial",
      `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(8)))
        .toString("hex")
        .replace(/^[89a-f]/, "1")}`,
      "-out",
      certPath,
    ]);
    const [keyPem, certPem] = await Promise.all([readFile(keyPath, "utf8"), readFile(certPath, "utf8")]);
    const key = await crypto.subtle.importKey(
      "pkcs8",
      pemBody(keyPem),
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return { key, certificateDer: pemBody(certPem) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
