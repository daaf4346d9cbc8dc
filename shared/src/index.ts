// Public API of @ecf/shared. Each concept lives in its own module; this file only re-exports.
export * from "./problems.ts";
export * from "./tipos.ts";
export * from "./money.ts";
export * from "./dgii-time.ts";
export * from "./catalogs.ts";
export * from "./obligations.ts";
export * from "./xml/model.ts";
export * from "./xml/serialize.ts";
export * from "./xml/parse.ts";
export * from "./xml/facets.ts";
export * from "./xml/structure.ts";
export * from "./xml/canonical.ts";
export * from "./xml/json-schema.ts";
// libxml2 (xmllint-wasm, Node and browsers) and the schema texts it compiles stay out of the main
// entry, so no bundle carries them: import "@ecf/shared/xml/xsd-validate" where libxml2 is wanted.
export * from "./xml/xsd-model-validate.ts";
export * from "./signing/canonical-check.ts";
export * from "./signing/fast-signer.ts";
export * from "./signing/xmldsig-signer.ts";
export * from "./signing/verify.ts";
export * from "./signing/certificate.ts";
export * from "./signing/trust.ts";
export * from "./tolerance.ts";
export * from "./totals.ts";
export { buildDocumentXml, DocumentBuildError } from "./documents/build.ts";
export * from "./documents/rfce.ts";
export * from "./documents/arecf.ts";
export * from "./documents/acecf.ts";
export * from "./documents/anecf.ts";
export * from "./documents/semilla.ts";
export * from "./ids.ts";
export * from "./sha256.ts";
export * from "./pos-device.ts";
export * from "./credit-notes.ts";
export * from "./signing/pkcs12.ts";
export * from "./signing/key-at-rest.ts";
export * from "./signing/base64.ts";
export * from "./signing/timbre.ts";
export * from "./signing/fecha-firma.ts";
export * from "./rfce-threshold.ts";
export * from "./ecf-rules.ts";
export * from "./validate.ts";
// Defensive readers over an untrusted JSON e-CF (anything in, undefined out).
export { isObject, objAt, objectsOf, textOf, valueOf, type JsonObject } from "./totals-read.ts";
