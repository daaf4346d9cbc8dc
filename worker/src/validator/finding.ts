// One thing the public validator found in a document: where (an XPath-like path into the XML, or
// the file name), a stable code, English and Spanish text, and the DGII rule it rests on.
export interface Finding {
  path: string;
  code: string;
  message: string;
  messageEs: string;
  /** The DGII document and field or section the rule comes from. */
  rule: string;
  severity: "error" | "warning";
}

export const finding = (
  path: string,
  code: string,
  message: string,
  messageEs: string,
  rule: string,
  severity: Finding["severity"] = "error",
): Finding => ({ path, code, message, messageEs, rule, severity });
