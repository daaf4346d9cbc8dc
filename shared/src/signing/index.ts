// The signing API, importable on its own (the POS bundles only this).
export * from "./canonical-check.ts";
export * from "./fast-signer.ts";
export * from "./xmldsig-signer.ts";
export * from "./verify.ts";
export * from "./certificate.ts";
export * from "./pkcs12.ts";
export * from "./key-at-rest.ts";
export * from "./timbre.ts";
export * from "./fecha-firma.ts";
export * from "./base64.ts";
