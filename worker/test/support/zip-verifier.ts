// A Node-side checker for the workerd tests, run by the global setup: POST /verify with a zip as
// the body. Independent tools judge it: Info-ZIP's `unzip -t` tests every entry's CRC-32 and
// the structure (data descriptors, ZIP64), `unzip` extracts it, and xmlsec1 verifies the XMLDSig
// signature of every .xml inside, trusting only the test certificate. Answers
// { unzipTest, entries, names, index, xml, verified, failed } (index: indice.csv's text; failed: the
// files xmlsec1 refused, with its output).
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
/** xmlsec1 verifies many files per run and stops at the first it refuses. */
const XMLSEC_BATCH = 400;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

async function xmlsec(
  files: string[],
  trusted: string[],
): Promise<{ verified: number; failed: { file: string; output: string }[] }> {
  const args = (batch: string[]) => [
    "--verify",
    ...trusted.flatMap((t) => ["--trusted-pem", t]),
    "--enabled-key-data",
    "x509",
    ...batch,
  ];
  let verified = 0;
  const failed: { file: string; output: string }[] = [];
  const batches: string[][] = [];
  for (let i = 0; i < files.length; i += XMLSEC_BATCH) batches.push(files.slice(i, i + XMLSEC_BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      try {
        await run("xmlsec1", args(batch), { maxBuffer: 64 * 1024 * 1024 });
        verified += batch.length;
      } catch {
        // One at a time, to name every file refused (a refusal stops a batch).
        for (const file of batch) {
          try {
            await run("xmlsec1", args([file]));
            verified++;
          } catch (error) {
            const e = error as { stdout?: string; stderr?: string };
            failed.push({ file, output: `${e.stdout ?? ""}${e.stderr ?? ""}`.slice(0, 500) });
          }
        }
      }
    }),
  );
  return { verified, failed };
}

/** Trusts `trustedCertificatePem` and, so OpenSSL can build its chain, the CA that issued it. */
export async function startZipVerifier(
  trustedCertificatePem: string,
  issuerPem: string,
): Promise<{ url: string; close(): Promise<void> }> {
  execFileSync(
    process.execPath,
    [new URL("../../../scripts/require-tools.mjs", import.meta.url).pathname, "xmlsec1", "unzip"],
    { stdio: "inherit" },
  );
  const server: Server = createServer(async (req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/verify") return answer(404, { error: "POST /verify" });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const dir = mkdtempSync(join(tmpdir(), "ecf-zip-"));
    try {
      const zip = join(dir, "archive.zip");
      const trusted = [join(dir, "issuer.pem"), join(dir, "trusted.pem")];
      writeFileSync(zip, Buffer.concat(chunks));
      writeFileSync(trusted[0]!, issuerPem);
      writeFileSync(trusted[1]!, trustedCertificatePem);
      let unzipTest: string;
      try {
        await run("unzip", ["-tq", zip]);
        unzipTest = "ok";
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        unzipTest = `${e.stdout ?? ""}${e.stderr ?? ""}`.slice(0, 2000);
      }
      const out = join(dir, "out");
      await run("unzip", ["-q", "-o", zip, "-d", out]).catch(() => {});
      const entries = (() => {
        try {
          return filesUnder(out)
            .map((f) => relative(out, f))
            .sort();
        } catch {
          return [];
        }
      })();
      const xml = entries.filter((e) => e.endsWith(".xml"));
      const { verified, failed } = await xmlsec(
        xml.map((e) => join(out, e)),
        trusted,
      );
      const index = entries.includes("indice.csv") ? readFileSync(join(out, "indice.csv"), "utf8") : "";
      answer(200, {
        unzipTest,
        entries: entries.length,
        names: entries,
        index,
        xml: xml.length,
        verified,
        failed: failed.map((f) => ({ ...f, file: relative(out, f.file) })),
      });
    } catch (error) {
      answer(500, { error: (error as Error).message });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
