// Public API of @ecf/shared. Each concept lives in its own module; this file only re-exports.
export * from "./problems.ts";
export * from "./tipos.ts";
export * from "./money.ts";
export * from "./catalogs.ts";
export * from "./obligations.ts";
