// The buyer's consultation link of an issued e-CF: the page the issuer must offer its buyers
// (formato-rfce: "el emisor deberá disponer de un mecanismo electrónico para fines de consulta";
// representacion-impresa §3: "Enlace consulta proveedor electrónico"). The address names the
// issuer and the e-NCF and carries the security code (CodigoSeguridad, the first 6 characters of
// SignatureValue) as its proof: only someone who holds the printed copy knows it. The worker's
// page, its PDF, its e-mail and the till's ticket all build the link here, so they agree.

/** The page: /r/{rnc}/{encf}?c={CodigoSeguridad}. */
export function receiptPageUrl(origin: string, rnc: string, encf: string, codigoSeguridad: string): string {
  return `${trimmed(origin)}/r/${rnc}/${encf}?c=${encodeURIComponent(codigoSeguridad)}`;
}

/** The page's downloads (the PDF, the signed XML) and its crédito fiscal request. */
export function receiptPartUrl(
  origin: string,
  rnc: string,
  encf: string,
  codigoSeguridad: string,
  part: "pdf" | "xml" | "credito-fiscal",
): string {
  return `${trimmed(origin)}/r/${rnc}/${encf}/${part}?c=${encodeURIComponent(codigoSeguridad)}`;
}

/**
 * The short link printed beside DGII's QR: one path segment, RNC + e-NCF + the security code in
 * base64url ("+" → "-", "/" → "_"), so that nothing in it needs escaping. It redirects to the page.
 */
export function receiptShortUrl(origin: string, rnc: string, encf: string, codigoSeguridad: string): string {
  const code = codigoSeguridad.replace(/\+/g, "-").replace(/\//g, "_");
  return `${trimmed(origin)}/r/${rnc}${encf}${code}`;
}

/** What a short link's segment names, or undefined when it is not one. */
export function parseShortLink(segment: string): { rnc: string; encf: string; codigoSeguridad: string } | undefined {
  const match = /^(\d{9}|\d{11})(E\d{12})([A-Za-z0-9_-]{6})$/.exec(segment);
  if (!match) return undefined;
  return { rnc: match[1]!, encf: match[2]!, codigoSeguridad: match[3]!.replace(/-/g, "+").replace(/_/g, "/") };
}

const trimmed = (origin: string) => origin.replace(/\/+$/, "");
