// SHA-256 as lowercase hex: the form every digest this system stores or compares takes (archived
// documents, credential and token hashes, request fingerprints, certificate digests). WebCrypto,
// so the same function runs in workerd, browsers and Node.

const encoder = new TextEncoder();

/** The SHA-256 of `data` (text as its UTF-8 bytes) in lowercase hex. */
export async function sha256Hex(data: string | Uint8Array | ArrayBuffer): Promise<string> {
  // Bytes as a Uint8Array on a plain ArrayBuffer (a copy of a view), as WebCrypto's types want.
  const bytes = typeof data === "string" ? encoder.encode(data) : new Uint8Array(data);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}
