// xmldsigjs configured once for every runtime: xml-core gets @xmldom/xmldom and xpath where there
// is no native DOM (workerd, Node), and the "ds" prefix is removed from the class metadata so
// signatures come out unprefixed as DGII expects. Setting `Prefix = ""` on instances is not enough:
// child elements take their prefix from the static metadata and the signature no longer verifies.
import { DOMImplementation, DOMParser, XMLSerializer } from "@xmldom/xmldom";
import { setNodeDependencies } from "xml-core";
import * as xmldsig from "xmldsigjs";
import xpath from "xpath";

/** Thrown by our DOMParser for any error, not only fatal ones (xmldom only logs the others). */
class StrictDOMParser extends DOMParser {
  constructor() {
    super({
      onError: (level: string, message: string) => {
        if (level !== "warning") throw new Error(`XML parse ${level}: ${message}`);
      },
    });
  }
}

interface XmlClassMetadata {
  prefix?: string | null;
  items?: Record<string, { prefix?: string | null }>;
}

let configured = false;

/** Idempotent; every module that uses xmldsigjs calls it before use. */
export function configureXmldsig(): void {
  if (configured) return;
  configured = true;
  setNodeDependencies({ DOMParser: StrictDOMParser, XMLSerializer, DOMImplementation, xpath });
  // xmldsigjs finds WebCrypto by itself only where `self` exists (workerd, browsers), not in Node.
  try {
    void xmldsig.Application.crypto;
  } catch {
    xmldsig.Application.setEngine("WebCrypto", crypto);
  }
  for (const value of Object.values(xmldsig)) {
    if (typeof value !== "function") continue;
    const meta = value as unknown as XmlClassMetadata;
    if (Object.hasOwn(meta, "prefix") && meta.prefix === xmldsig.XmlSignature.DefaultPrefix) meta.prefix = null;
    if (meta.items && Object.hasOwn(meta, "items")) {
      for (const item of Object.values(meta.items)) {
        if (item && item.prefix === xmldsig.XmlSignature.DefaultPrefix) item.prefix = null;
      }
    }
  }
}

export { xmldsig };
