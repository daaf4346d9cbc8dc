// The harness's own smoke benchmark: a SHA-256 over 10 KB, so `npm run bench` always prints a figure.
import { opsPerSecond, report } from "./lib.ts";

const bytes = new Uint8Array(10 * 1024).fill(60);
const rate = await opsPerSecond(() => crypto.subtle.digest("SHA-256", bytes), 300);
report("harness sha256 10KB", rate, "ops/s");
