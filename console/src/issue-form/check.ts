// The shared validation, run in the browser as the owner types: the same validateEcf the API runs
// (loaded when the issue page first checks, so other pages do not carry it), with the issuer's
// own data stood in for (the Emisor is the company's, never the owner's to fix here).
import type { FieldProblem } from "./field-errors.ts";

type Validate = typeof import("@ecf/shared/validate").validateEcf;
let loading: Promise<Validate> | undefined;

export interface CheckContext {
  tipo: string;
  rnc: string;
  /** The e-NCF the sequence gives next and its expiry (yyyy-MM-dd), when known. */
  nextEncf?: string | null;
  expiresOn?: string;
}

/** The document's errors (warnings are DGII's to tolerate) outside the Emisor. */
export async function problemsOf(doc: Record<string, unknown>, ctx: CheckContext): Promise<FieldProblem[]> {
  loading ??= import("@ecf/shared/validate").then((m) => m.validateEcf);
  const validate = await loading;
  const expires = ctx.expiresOn ?? "2099-12-31";
  const result = validate(doc, {
    now: new Date(),
    eNCF: ctx.nextEncf ?? `E${ctx.tipo}0000000001`,
    fechaVencimientoSecuencia: expires.split("-").reverse().join("-"),
    emisor: { RNCEmisor: ctx.rnc, RazonSocialEmisor: "EMISOR", DireccionEmisor: "DIRECCION" },
  });
  return result.problems
    .filter((p) => p.severity === "error" && !p.path.startsWith("/Encabezado/Emisor"))
    .map((p) => ({ path: p.path, messageEs: p.messageEs }));
}
