// The admin CLI and the admin API as an operator reaches a running local stack; shared by the
// Node tests of the catalogue and taxpayer-registry commands.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { root } from "../../../scripts/lib.mjs";
import type { LocalStack } from "../../../scripts/local-stack.ts";

/** Runs the admin CLI as a separate process (as `npm run admin --` does) and collects its output. */
export function runAdminCli(
  stack: LocalStack,
  ...args: string[]
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, WORKER_URL: stack.workerUrl, ADMIN_SECRET: stack.adminSecret },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** One admin API call that must succeed; answers its JSON. */
export async function adminApiCall(stack: LocalStack, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.workerUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await res.json()) as any;
}
