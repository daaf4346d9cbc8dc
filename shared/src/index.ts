// Public API of @ecf/shared. Each concept lives in its own module; this file only re-exports.
export * from "./problems.ts";
export * from "./tipos.ts";
export * from "./money.ts";
export * from "./catalogs.ts";
export * from "./obligations.ts";
export * from "./xml/model.ts";
export * from "./xml/serialize.ts";
export * from "./xml/parse.ts";
export * from "./xml/facets.ts";
export * from "./xml/structure.ts";
export * from "./xml/canonical.ts";
export * from "./xml/xsd-sources.ts";
export * from "./xml/xsd-validate.ts";
