// Signed documents for the tests, built with the platform's own factories, serializer and signer.
import {
  buildAcecf,
  buildAnecf,
  buildRfce,
  ecfToXml,
  signEcfXml,
  type AcecfInput,
  type AnecfInput,
  type TipoeCF,
} from "@ecf/shared";
import type { TestIdentity } from "@ecf/shared/test-support/certs";
import { makeEcf, type EcfDocument, type EcfFactoryOptions } from "@ecf/shared/test-support/ecf-factories";

export interface SignedDocument {
  xml: string;
  fileName: string;
  rnc: string;
  encf: string;
  securityCode: string;
  doc: EcfDocument;
}

const at = (doc: EcfDocument, ...path: string[]): Record<string, unknown> =>
  path.reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, doc);

export function securityCodeOf(signedXml: string): string {
  return /<SignatureValue>([^<]{6})/.exec(signedXml)![1]!;
}

/** A signed e-CF of `tipo`; `change` edits the document before it is serialized and signed. */
export async function signedEcf(
  identity: TestIdentity,
  tipo: TipoeCF,
  options: EcfFactoryOptions = {},
  change?: (doc: EcfDocument, at: (...path: string[]) => Record<string, unknown>) => void,
): Promise<SignedDocument> {
  const doc = makeEcf(tipo, options);
  change?.(doc, (...path) => at(doc, ...path));
  const xml = await signEcfXml(ecfToXml(doc), identity.privateKey, identity.certificateDer);
  const rnc = at(doc, "Encabezado", "Emisor").RNCEmisor as string;
  const encf = at(doc, "Encabezado", "IdDoc").eNCF as string;
  return { xml, fileName: `${rnc}${encf}.xml`, rnc, encf, securityCode: securityCodeOf(xml), doc };
}

/** The RFCE of an E32 under RD$250,000: the E32 is signed first, its security code goes in the summary. */
export async function signedRfce(identity: TestIdentity, options: EcfFactoryOptions = {}): Promise<SignedDocument> {
  const e32 = await signedEcf(identity, "32", options);
  const xml = await signEcfXml(
    buildRfce({ ecf: e32.doc, CodigoSeguridadeCF: e32.securityCode }),
    identity.privateKey,
    identity.certificateDer,
  );
  return { ...e32, xml };
}

export async function signedAcecf(
  identity: TestIdentity,
  input: AcecfInput,
): Promise<{ xml: string; fileName: string }> {
  const xml = await signEcfXml(buildAcecf(input), identity.privateKey, identity.certificateDer);
  return { xml, fileName: `${input.RNCComprador}${input.eNCF}.xml` };
}

/** `edit` rewrites the unsigned XML, to produce what the builder itself refuses to write. */
export async function signedAnecf(
  identity: TestIdentity,
  input: AnecfInput,
  edit: (xml: string) => string = (xml) => xml,
): Promise<{ xml: string; fileName: string }> {
  const xml = await signEcfXml(edit(buildAnecf(input)), identity.privateKey, identity.certificateDer);
  return { xml, fileName: `${input.RncEmisor}.xml` };
}
