// The catalogue file the catalogue benches import: a generated CSV in the admin CLI's format, and
// the CLI run as `npm run admin --` runs it. Used by catalog.bench.ts and till-catalog.bench.ts.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "../scripts/lib.mjs";

const defaultName = (i: number) =>
  i % 7 === 0 ? `"Producto ${i}, presentación ""familiar"""` : `Producto ${i} de la tienda`;

const UNITS = ["43", "23", "21", "24", "6", "31"];

/** A store's catalogue: varied names (some quoted), one or two barcodes, every rate and kind. */
export function catalogCsv(n: number, nameOf: (i: number) => string = defaultName): string {
  const lines = ["code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active"];
  for (let i = 0; i < n; i++) {
    const code = `SKU-${String(i).padStart(6, "0")}`;
    const barcodes =
      i % 3 === 0
        ? `746${String(i).padStart(10, "0")}|${String(i).padStart(12, "0")}`
        : `746${String(i).padStart(10, "0")}`;
    const name = nameOf(i);
    const price = `${(i % 5000) + 1}.${String(i % 100).padStart(2, "0")}`;
    const rate = ["18", "18", "16", "0", "exempt"][i % 5];
    lines.push(
      `${code},${barcodes},${name},${price},${i % 4 !== 0},${rate},${UNITS[i % UNITS.length]},${i % 10 === 0 ? "service" : "good"},${i % 50 !== 0}`,
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Runs the admin CLI as `npm run admin --` does; resolves with its time and output, rejects on failure. */
export function admin(
  workerUrl: string,
  adminSecret: string,
  ...args: string[]
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, WORKER_URL: workerUrl, ADMIN_SECRET: adminSecret },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) =>
      status === 0
        ? resolve({ ms: performance.now() - start, stdout })
        : reject(new Error(`admin ${args[0]} exited ${status}: ${stderr}`)),
    );
  });
}
