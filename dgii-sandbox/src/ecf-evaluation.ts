// What DGII decides about a received e-CF, in the order it matters: a rejection that frees the
// e-NCF (structure, signature, e-NCF format, expired sequence) comes before one that consumes it.
import { drIsoDate, isoDateFromDgii } from "@ecf/shared";
import type { SandboxContext } from "./context.ts";
import { ENCF_PATTERN, type EcfSummary } from "./documents.ts";
import type { Environment } from "./environments.ts";
import type { ForcedRejection } from "./faults.ts";
import { accepted, acceptedWithObservations, rejected, type Mensaje, type Outcome } from "./outcome.ts";
import { CODES, mensaje } from "./rejection-codes.ts";
import type { SchemaKind } from "./checks.ts";
import { isDelegate, NOT_A_DELEGATE } from "./signers.ts";

export interface EcfEvaluationInput {
  trackId: string;
  xml: string;
  summary: EcfSummary;
  env: Environment;
  receivedAt: Date;
  forced: ForcedRejection | null;
}

/** Decimal text to a number for the zero test only; amounts are never computed here. */
const isZeroAmount = (text: string | undefined) => text !== undefined && /^0+(\.0+)?$/.test(text);

export async function evaluateEcf(ctx: SandboxContext, input: EcfEvaluationInput): Promise<Outcome> {
  const { summary, xml } = input;
  if (input.forced) {
    return rejected([{ codigo: input.forced.code, valor: input.forced.message }], input.forced.secuenciaUtilizada);
  }

  if (!ENCF_PATTERN.test(summary.encf) || summary.encf.slice(1, 3) !== summary.tipo) {
    return rejected(
      [mensaje("encfInvalido", `El e-NCF ${summary.encf} no es válido para el tipo de e-CF ${summary.tipo}`)],
      CODES.encfInvalido.secuenciaUtilizada,
    );
  }
  // The e-NCF pattern above guarantees TipoeCF is one of the schema kinds.
  const schema = await ctx.checks.validateSchema(xml, summary.tipo as SchemaKind);
  if (!schema.ok) {
    return rejected(
      schema.errors
        .slice(0, 20)
        .map((error) => mensaje("estructuraInvalida", `La estructura del archivo XML no es válida: ${error}`)),
      CODES.estructuraInvalida.secuenciaUtilizada,
    );
  }

  const signature = await ctx.checks.verifySignature(xml);
  if (!signature.ok) {
    return rejected(
      [mensaje("firmaInvalida", `La firma del XML no es válida: ${signature.message}`)],
      CODES.firmaInvalida.secuenciaUtilizada,
    );
  }
  if (!isDelegate(ctx, summary.rncEmisor, signature.certificate)) {
    return rejected(
      [mensaje("firmanteNoAutorizado", NOT_A_DELEGATE(`Emisor ${summary.rncEmisor}`))],
      CODES.firmanteNoAutorizado.secuenciaUtilizada,
    );
  }

  if (summary.fechaVencimientoSecuencia) {
    // Compared as written (in yyyy-MM-dd order): a dd-MM-yyyy that is no calendar date still counts.
    const written = /^\d{2}-\d{2}-\d{4}$/.test(summary.fechaVencimientoSecuencia);
    if (written && isoDateFromDgii(summary.fechaVencimientoSecuencia) < drIsoDate(input.receivedAt)) {
      return rejected(
        [
          mensaje(
            "secuenciaVencida",
            `El e-NCF ${summary.encf} se encuentra vencido (FechaVencimientoSecuencia ${summary.fechaVencimientoSecuencia})`,
          ),
        ],
        CODES.secuenciaVencida.secuenciaUtilizada,
      );
    }
  }

  if (ctx.state.isVoided(input.env, summary.rncEmisor, summary.encf)) {
    return rejected(
      [mensaje("encfAnulado", `El e-NCF ${summary.encf} fue anulado`)],
      CODES.encfAnulado.secuenciaUtilizada,
    );
  }

  const earlier = ctx.state
    .receptionsOf(input.env, summary.rncEmisor, summary.encf)
    .some((other) => other.trackId !== input.trackId && (other.outcome?.codigo === 1 || other.outcome?.codigo === 4));
  if (earlier) {
    return rejected(
      [mensaje("encfDuplicado", `El e-NCF ${summary.encf} ya fue utilizado por el RNC ${summary.rncEmisor}`)],
      CODES.encfDuplicado.secuenciaUtilizada,
    );
  }

  // Text corrections are credit notes only (DGII: "a través de una nota de crédito … código 2").
  if (summary.tipo === "34" && summary.codigoModificacion === "2") {
    const problems: Mensaje[] = [];
    const amounts = summary.totales.filter((name) => name !== "MontoTotal");
    if (amounts.length > 0) {
      problems.push(
        mensaje(
          "correccionTextoConMontos",
          `Una corrección de texto (CodigoModificacion 2) no lleva montos en Totales: ${amounts.join(", ")}`,
        ),
      );
    }
    if (!isZeroAmount(summary.montoTotal)) {
      problems.push(
        mensaje(
          "correccionTextoMontoTotal",
          `El MontoTotal de una corrección de texto (CodigoModificacion 2) debe ser 0, es ${summary.montoTotal ?? "ausente"}`,
        ),
      );
    }
    if (problems.length > 0) return rejected(problems, true);
  }

  const findings = await ctx.checks.checkRules(xml, input.receivedAt);
  if (findings.errors.length > 0)
    return rejected(findings.errors.slice(0, 20), CODES.formatoInvalido.secuenciaUtilizada);
  return findings.observations.length > 0 ? acceptedWithObservations(findings.observations) : accepted();
}
