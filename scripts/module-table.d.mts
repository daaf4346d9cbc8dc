// Types of module-table.mjs for the TypeScript tests that import it.
export function collapseModuleTable(): (chunk: string) => string;
