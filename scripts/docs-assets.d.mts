// Types of docs-assets.mjs for the TypeScript tests that import it.
export const SCALAR_SCRIPT_PATH: string;
export function assetsDirectory(): string;
export function placeDocsAssets(): string;
