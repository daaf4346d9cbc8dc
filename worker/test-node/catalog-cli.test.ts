// The catalogue commands of `npm run admin` as an operator runs them, against a real local stack
// (wrangler dev, the issuer's Durable Object, D1): a products file with bad lines is refused whole
// with a readable report and a non-zero exit, a good one is imported, exported back byte for byte,
// a cashier is created and a till's canEditPrices is switched.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";
import { adminApiCall, runAdminCli } from "./support/admin-cli.ts";

const HEADER = "code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active";

let stack: LocalStack;
let dir: string;
let companyId: string;

const admin = (...args: string[]) => runAdminCli(stack, ...args);
const adminApi = (method: string, path: string, body?: unknown) => adminApiCall(stack, method, path, body);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ecf-catalog-cli-"));
  // Frozen: another developer's edit must not reload the worker between the commands.
  stack = await startLocalStack({ frozen: true });
  companyId = (
    await adminApi("POST", "/admin/companies", {
      registryNumber: "131880681",
      name: "Colmado Prueba SRL",
      dgiiServer: "testecf",
    })
  ).id;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run admin -- products:*, cashiers:create, devices:update", () => {
  it("refuses a file with bad lines whole: the report names each line, the exit is non-zero, nothing is stored", async () => {
    const file = join(dir, "bad.csv");
    writeFileSync(
      file,
      [
        HEADER,
        "A-1,,Arroz 1 lb,45.00,true,18,23,good,true",
        "A-2,,Aceite,precio,true,18,43,good,true",
        "A-3,,Azúcar,60.00,true,20,43,good,true",
        "",
      ].join("\r\n"),
    );
    const run = await admin("products:import", "--company", companyId, "--file", file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}: nothing was imported.`);
    expect(run.stderr).toMatch(/^ {2}line 3, price: .+$/m);
    expect(run.stderr).toMatch(/^ {2}line 4, itbisRate: .+$/m);
    expect(run.stderr).not.toMatch(/line 2\b/);
    const exported = await admin("products:export", "--company", companyId);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toBe(`${HEADER}\r\n`);
  }, 120_000);

  it("imports a good file, and exports it back as the same bytes", async () => {
    const file = join(dir, "good.csv");
    const csv = [
      HEADER,
      "A-1,7460001|7460002,Arroz 1 lb,45.00,true,18,23,good,true",
      'A-2,,"Aceite, 1 L",310.50,false,16,24,good,false',
      "S-1,,Entrega,100.00,true,exempt,43,service,true",
      "",
    ].join("\r\n");
    writeFileSync(file, csv);
    const run = await admin("products:import", "--company", companyId, "--file", file);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ lines: 3, created: 3, updated: 0, unchanged: 0 });

    const out = join(dir, "out.csv");
    const exported = await admin("products:export", "--company", companyId, "--file", out);
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({ file: out, products: 3 });
    expect(readFileSync(out, "utf8")).toBe(csv);
  }, 120_000);

  it("creates a cashier and switches a till's canEditPrices", async () => {
    const cashier = await admin("cashiers:create", "--company", companyId, "--name", "Ana", "--pin", "123456");
    expect(cashier.status, cashier.stderr).toBe(0);
    expect(JSON.parse(cashier.stdout)).toMatchObject({ name: "Ana", active: true });
    expect(cashier.stdout).not.toContain("123456");
    const badPin = await admin("cashiers:create", "--company", companyId, "--name", "Ana", "--pin", "12");
    expect(badPin.status).toBe(1);

    const device = await adminApi("POST", `/admin/companies/${companyId}/devices`, { name: "Caja 1" });
    const on = await admin("devices:update", "--company", companyId, "--id", device.id, "--can-edit-prices", "true");
    expect(on.status, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ id: device.id, name: "Caja 1", canEditPrices: true });
    const wrong = await admin("devices:update", "--company", companyId, "--id", device.id, "--can-edit-prices", "yes");
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain("--can-edit-prices must be true or false");
  }, 120_000);
});
