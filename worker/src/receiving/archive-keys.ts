// Where received documents live in R2: beside the issuer's own receipts, under compras/.

/** `{rnc}/compras/{yyyy}/{mm}/{RNCEmisor}{eNCF}.xml`, the month of FechaEmision. */
export function purchaseXmlKey(receiverRnc: string, isoIssueDate: string, rncEmisor: string, encf: string): string {
  const [yyyy, mm] = isoIssueDate.split("-");
  return `${receiverRnc}/compras/${yyyy}/${mm}/${rncEmisor}${encf}.xml`;
}

/** A companion document of a stored XML: `x.xml` → `x.arecf.xml`, `x.acecf.xml`, `x.pdf`. */
export function companionKey(xmlKey: string, suffix: ".arecf.xml" | ".acecf.xml" | ".pdf"): string {
  return xmlKey.replace(/\.xml$/, "") + suffix;
}
