// @ecf/client as an integrator gets it: the build (scripts/build.mjs) packed by `npm pack`,
// installed into an empty project outside this checkout, and the README's example, copied from
// sdk/README.md as it is, type-checked against the installed declarations and run with Node
// against the private worker (WORKER_URL): it logs in, issues an E32 and saves its PDF. The
// package's version is the API's.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { API_VERSION } from "../../worker/src/version.ts";
import { apiVersion, buildSdk, sdkDir } from "../scripts/build.mjs";
// @ts-expect-error plain Node ES module without types
import { seed } from "../../scripts/seed.mjs";

const root = join(sdkDir, "..");
const baseUrl = inject("workerUrl");
let work: string;
let project: string;
let tarball: string;

/** The environment without what an npm run above this test set (its workspace, its prefix). */
const cleanEnv = (extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  ...extra,
});

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(cmd, args, { cwd, env: cleanEnv(env), encoding: "utf8", timeout: 180_000 });
  if (result.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const npm = (args: string[], cwd: string) => run("npm", args, cwd);

/** The README's TypeScript example, exactly as written. */
function readmeExample(): string {
  const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(sdkDir, "README.md"), "utf8"));
  if (!block) throw new Error("sdk/README.md has no ts example");
  return block[1]!;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ecf-client-package-"));
  const dist = buildSdk(join(work, "dist"));
  npm(["pack", dist, "--pack-destination", work, "--silent"], work);
  tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz"))!);
  project = join(work, "integrator");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "integrator", private: true, type: "module" }));
  npm(["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], project);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed @ecf/client", () => {
  it("is versioned with the API", () => {
    const source = JSON.parse(readFileSync(join(sdkDir, "package.json"), "utf8")) as { version: string };
    expect(apiVersion()).toBe(API_VERSION);
    expect(source.version).toBe(API_VERSION);
    const installed = JSON.parse(readFileSync(join(project, "node_modules/@ecf/client/package.json"), "utf8"));
    expect(installed.version).toBe(API_VERSION);
    expect(tarball.endsWith(`ecf-client-${API_VERSION}.tgz`)).toBe(true);
  });

  it("installs outside the checkout as JavaScript with declarations, without the TypeScript source", () => {
    expect(relative(root, project).startsWith("..")).toBe(true);
    const files = readdirSync(join(project, "node_modules/@ecf/client"), { recursive: true }).map(String);
    expect(files).toContain("index.js");
    expect(files).toContain("index.d.ts");
    expect(files).toContain(join("generated", "openapi.d.ts"));
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    expect(readdirSync(join(project, "node_modules"))).toContain("openapi-fetch");
  });

  it("runs the README example against WORKER_URL: logs in, issues an E32, saves its PDF", async () => {
    const demo = (await seed(baseUrl, join(work, "credentials.json"), {
      adminSecret: inject("adminSecret"),
      sandboxUrl: inject("sandboxUrl"),
    })) as { company: { apiKey: string; apiSecret: string } };
    writeFileSync(join(project, "example.ts"), readmeExample());
    // The example type-checks against the installed declarations (Node's own types from this checkout).
    run(
      process.execPath,
      [
        join(root, "node_modules/typescript/bin/tsc"),
        "--noEmit",
        "--strict",
        "--target",
        "es2022",
        "--module",
        "nodenext",
        "--typeRoots",
        join(root, "node_modules/@types"),
        "--types",
        "node",
        "example.ts",
      ],
      project,
    );
    const out = run(process.execPath, ["example.ts"], project, {
      WORKER_URL: baseUrl,
      ECF_API_KEY: demo.company.apiKey,
      ECF_API_SECRET: demo.company.apiSecret,
    });
    const encf = /E32\d{10}/.exec(out)?.[0];
    expect(encf, out).toBeDefined();
    expect(out).toMatch(/^20[02] E32\d{10} (Aceptado|Aceptado Condicional|En Proceso)$/m);
    expect(
      readFileSync(join(project, `${encf}.pdf`))
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
  });
});
