// Types of build-worker.mjs for the TypeScript tests and benchmarks that import it.
import type { Metafile } from "esbuild";

export const workerDist: string;
export function buildWorker(options?: { outdir?: string; minify?: boolean }): Promise<Metafile>;
