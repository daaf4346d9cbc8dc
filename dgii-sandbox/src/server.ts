import { startSandbox } from "./start.ts";

const port = Number(process.env.SANDBOX_PORT ?? 8788);
const hostname = process.env.SANDBOX_HOST ?? "127.0.0.1";
const processingMs = process.env.SANDBOX_PROCESSING_MS === undefined ? undefined : Number(process.env.SANDBOX_PROCESSING_MS);

const sandbox = await startSandbox({ port, hostname, ...(processingMs === undefined ? {} : { processingMs }) });
console.log(`DGII sandbox listening on ${sandbox.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void sandbox.close().then(() => process.exit(0)));
}
