import { sha256Hex } from "../crypto/credentials.ts";

/** `{rnc}/{yyyy}/{mm}/{eNCF}.xml`, dated by FechaEmision (dd-MM-yyyy): the 10-year archive layout. */
export function receiptXmlKey(rnc: string, encf: string, fechaEmision: string): string {
  const [, mm, yyyy] = fechaEmision.split("-");
  return `${rnc}/${yyyy}/${mm}/${encf}.xml`;
}

async function bytesSha256Hex(bytes: Uint8Array): Promise<string> {
  // A copy typed on a plain ArrayBuffer, as WebCrypto wants.
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(bytes));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface ArchivedObject {
  key: string;
  sha256: string;
}

/**
 * Stores the signed bytes once. Archived documents are immutable: if the key already holds
 * different bytes, that is refused rather than overwritten.
 */
export async function archiveImmutable(
  bucket: R2Bucket,
  key: string,
  body: string | Uint8Array,
  contentType: string,
): Promise<ArchivedObject> {
  const sha256 = typeof body === "string" ? await sha256Hex(body) : await bytesSha256Hex(body);
  const put = await bucket.put(key, body, {
    onlyIf: { etagDoesNotMatch: "*" },
    httpMetadata: { contentType },
    customMetadata: { sha256 },
  });
  if (!put) {
    const existing = await bucket.head(key);
    if (existing?.customMetadata?.sha256 !== sha256)
      throw new Error(`archive object ${key} already exists with different content`);
  }
  return { key, sha256 };
}
