/**
 * Validation against DGII's official XSDs with libxml2 compiled to WebAssembly (xmllint-wasm),
 * the independent oracle for everything we build and receive.
 *
 * xmllint-wasm runs libxml2 in a Worker (Node `worker_threads`, or a Web Worker in browsers).
 * Node is supported. workerd has no Worker constructor, so there `validateXsd` rejects; the
 * Worker service uses the model validator (xsd-model-validate.ts), which test/xsd-model-validate
 * holds to this one's verdict. Not exported from the package's main entry (it would carry
 * libxml2 and the schema texts into every bundle): import "@ecf/shared/xml/xsd-validate".
 */
import { validateXML } from "xmllint-wasm";
import type { DocumentKind } from "./model.ts";
import { xsdSource } from "./xsd-sources.ts";
import type { XsdValidationResult } from "./xsd-model-validate.ts";

export type { XsdValidationResult } from "./xsd-model-validate.ts";

export interface XsdValidateOptions {
  /** Require the Signature element the schemas end with (default true). */
  requireSignature?: boolean;
  /** Alternative validator (same contract as xmllint-wasm's `validateXML`). */
  engine?: typeof validateXML;
}

/** Thrown where libxml2 cannot run (workerd: no Worker constructor). */
export class XsdEngineUnavailableError extends Error {
  override name = "XsdEngineUnavailableError";
}

async function run(
  engine: typeof validateXML,
  args: Parameters<typeof validateXML>[0],
): ReturnType<typeof validateXML> {
  try {
    return await engine(args);
  } catch (e) {
    if (e instanceof ReferenceError && /Worker/.test(e.message)) {
      throw new XsdEngineUnavailableError(
        "XSD validation needs a Worker (Node or a browser); this runtime has none: pass options.engine",
      );
    }
    throw e;
  }
}

/** Validates `xml` against the schema of `kind`. */
export async function validateXsd(
  xml: string,
  kind: DocumentKind,
  options: XsdValidateOptions = {},
): Promise<XsdValidationResult> {
  const engine = options.engine ?? validateXML;
  const schema = xsdSource(kind, { requireSignature: options.requireSignature ?? true });
  const r = await run(engine, {
    xml: { fileName: "document.xml", contents: xml },
    schema: { fileName: "schema.xsd", contents: schema },
  });
  return {
    valid: r.valid,
    errors: r.errors.map((e) => e.message).filter((m) => m !== "" && !/fails to validate$/.test(m)),
  };
}

/**
 * Validates several documents of one kind in a single libxml2 run (one Worker, one schema
 * compilation): much cheaper than one `validateXsd` call per document.
 */
export async function validateXsdMany(
  xmls: readonly string[],
  kind: DocumentKind,
  options: XsdValidateOptions = {},
): Promise<XsdValidationResult[]> {
  if (xmls.length === 0) return [];
  const engine = options.engine ?? validateXML;
  const schema = xsdSource(kind, { requireSignature: options.requireSignature ?? true });
  const names = xmls.map((_, i) => `document-${i}.xml`);
  const r = await run(engine, {
    xml: xmls.map((contents, i) => ({ fileName: names[i]!, contents })),
    schema: { fileName: "schema.xsd", contents: schema },
  });
  const byFile = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of r.errors) {
    const file = e.loc?.fileName ?? names.find((n) => e.rawMessage.startsWith(n));
    if (!file || /fails to validate$/.test(e.message)) continue;
    byFile.get(file)?.push(e.message);
  }
  // "<file> fails to validate" lines carry no location: use them to mark files invalid too.
  const failed = new Set(
    r.errors.filter((e) => /fails to validate$/.test(e.rawMessage)).map((e) => e.rawMessage.split(" ")[0]),
  );
  return names.map((n) => {
    const errors = byFile.get(n) ?? [];
    return { valid: errors.length === 0 && !failed.has(n), errors };
  });
}
