// DGII's seed authentication, the same for DGII's own services and for every taxpayer's receiver
// services (emisor-receptor): get a seed, sign it with the issuer's certificate, post it back as
// `semilla.xml`, and read the token (and, from DGII, its expiry) from the JSON answer.
import { signXml } from "@ecf/shared";

/** DGII's services and the receiver standard take documents as the multipart field `xml`. */
export function xmlForm(xml: string, fileName: string): FormData {
  const form = new FormData();
  form.set("xml", new File([xml], fileName, { type: "text/xml" }));
  return form;
}

export interface SeedToken {
  token: string;
  /** DGII's expiry, when the answer has one. */
  expira?: string;
}

/**
 * Runs the exchange with the caller's own transport: `getSeed` answers the seed XML, `postSigned`
 * posts the form and answers the parsed JSON (each raising its own kind of error).
 */
export async function exchangeSeed(
  signer: { key: CryptoKey; certificateDer: Uint8Array },
  getSeed: () => Promise<string>,
  postSigned: (form: FormData) => Promise<{ token?: string; expira?: string }>,
): Promise<SeedToken | undefined> {
  // The seed carries namespace declarations: it is signed through the general XMLDSig path.
  const signed = await signXml(await getSeed(), signer.key, signer.certificateDer);
  const body = await postSigned(xmlForm(signed, "semilla.xml"));
  return body.token ? { token: body.token, ...(body.expira ? { expira: body.expira } : {}) } : undefined;
}
