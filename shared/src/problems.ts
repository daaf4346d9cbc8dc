/**
 * A problem found in a document. Every validator in this package reports through this one shape,
 * so the worker can turn any list of them into an RFC 9457 `errors[]` without translation.
 */
export type Severity = "error" | "warning";

export interface Problem {
  /** JSON pointer into the request document, e.g. `/DetallesItems/0/MontoItem`. */
  path: string;
  /** Stable machine code, snake_case, e.g. `required`, `prohibited`, `total_out_of_tolerance`. */
  code: string;
  /** English message. */
  message: string;
  /** Spanish message (what a DGII user reads). */
  messageEs: string;
  severity: Severity;
  /**
   * Where the rule comes from, always: a DGII document and its field or section (e.g.
   * `formato-ecf: MontoGravadoTotal (31: 2)`, `informe-tecnico §12`, `xsd: e-CF 31 …`), or, for the
   * shape of our JSON request, the API's JSON mapping (`json-mapping: …`).
   */
  rule: string;
  /** Extra data that explains the problem, e.g. the computed value of a total. */
  details?: Record<string, unknown>;
}

/**
 * The rule for a problem with the shape of our JSON request (not a DGII rule): the API's JSON
 * mapping, where the JSON mirrors DGII's XML, a container whose only child repeats is an array,
 * and values are JSON numbers or strings read exactly.
 */
export function jsonMappingRule(what: string): string {
  return `json-mapping: ${what}`;
}

/** RFC 6901 escaping of one reference token. */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Builds a JSON pointer from its tokens: `jsonPointer("DetallesItems", 0, "MontoItem")`. */
export function jsonPointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + pointerToken(t)).join("");
}

/**
 * A path built while walking down a document, one link per step: walking allocates one small
 * object per step instead of copying an array, and the JSON pointer is written only when a
 * problem needs it. `null` is the document itself.
 */
export interface Trail {
  readonly up: Trail | null;
  readonly token: string | number;
}

export function trailTo(up: Trail | null, token: string | number): Trail {
  return { up, token };
}

/** The JSON pointer of a trail, e.g. `/DetallesItems/0/MontoItem`. */
export function trailPointer(trail: Trail | null): string {
  let out = "";
  for (let t = trail; t; t = t.up) out = "/" + pointerToken(t.token) + out;
  return out;
}

/** Builds a problem; `details` is left out when not given (no `details: undefined` in the JSON). */
export function problem(
  path: string,
  code: string,
  severity: Severity,
  message: string,
  messageEs: string,
  rule: string,
  details?: Record<string, unknown>,
): Problem {
  const p: Problem = { path, code, message, messageEs, severity, rule };
  if (details) p.details = details;
  return p;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === "error");
}
