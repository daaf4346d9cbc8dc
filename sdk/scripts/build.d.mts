/** The sdk folder. */
export const sdkDir: string;
/** The API's version, read from worker/src/version.ts. */
export function apiVersion(): string;
/** Builds the publishable package into `outDir` (default sdk/dist) and answers its path. */
export function buildSdk(outDir?: string): string;
