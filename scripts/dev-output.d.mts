// Types of dev-output.mjs for the TypeScript tests that import it.
export function quietDevOutput(options?: { live?: () => boolean }): (chunk: string) => string;
