// XSD validation of received documents against DGII's official schemas, by the model validator of
// @ecf/shared: plain TypeScript driven by the model generated from those schemas, held to
// libxml2's verdict by shared/test/xsd-model-validate.test.ts. It replaced libxml2 compiled to
// WebAssembly here, which cost a quarter of the worker's upload and a module instantiation and
// schema compilation per batch of documents.
import { validateXsdModel, type DocumentKind, type XsdValidationResult } from "@ecf/shared";

/** Validates a document of `kind` against its official XSD; the Signature is judged by verifyXml. */
export function validateReceivedXsd(xml: string, kind: DocumentKind): XsdValidationResult {
  return validateXsdModel(xml, kind, { requireSignature: false });
}
