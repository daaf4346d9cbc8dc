/**
 * `validateEcf`: the one entry point that turns an e-CF request (JSON mirroring DGII's XML) into
 * the completed canonical document, reporting every problem at once.
 *
 * Order of work: complete the derivable fields (context, clock, line numbers, amounts, totals:
 * validate/derived.ts), canonicalize (numbers → DGII text), then check: structure and formats
 * (XSD), the obligation matrix with its conditions (validate/obligation-plan.ts), identifiers and
 * dates (validate/field-checks.ts), totals against DGII's tolerance, and the per-type rules. It
 * never throws, whatever the input. This module only copies the input safely, orders the steps
 * and gathers their problems; the types it takes and gives live in validate/context.ts.
 */
import { typeRules } from "./ecf-rules.ts";
import { parseENcf } from "./ids.ts";
import { jsonMappingRule, problem, trailPointer, trailTo, type Problem, type Trail } from "./problems.ts";
import { isTipoeCF, type TipoeCF } from "./tipos.ts";
import { isObject, isPresent, objAt, textOf, type JsonObject } from "./totals-read.ts";
import type { ValidationContext, ValidationResult } from "./validate/context.ts";
import { complete } from "./validate/derived.ts";
import { dateProblems, idProblems, modifiedReceiptProblems } from "./validate/field-checks.ts";
import { obligationProblems } from "./validate/obligation-plan.ts";
import { canonicalize } from "./xml/canonical.ts";
import { checkStructure } from "./xml/structure.ts";

export { isRfceSummary } from "./rfce-threshold.ts";
export {
  TOTALS_POLICIES,
  type EmisorProfile,
  type ModifiedReceipt,
  type TotalsPolicy,
  type ValidationContext,
  type ValidationResult,
} from "./validate/context.ts";
export { obligationProblems } from "./validate/obligation-plan.ts";

/**
 * A JSON-only deep copy (drops functions and symbols; cycles and absurd depth become undefined):
 * never throws. `__proto__` keys are left out and listed in `dropped` (as JSON pointers), so that
 * no later `obj[key] = value` can turn request data into a prototype.
 */
function cloneJson(v: unknown, dropped: string[], path: Trail | null = null, ancestors: object[] = []): unknown {
  if (v === null || typeof v !== "object") return typeof v === "function" || typeof v === "symbol" ? undefined : v;
  // The objects above this one (a document is a few levels deep: a scan beats a Set).
  if (ancestors.length > 64 || ancestors.includes(v)) return undefined;
  ancestors.push(v);
  try {
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i], dropped, trailTo(path, i), ancestors);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (k === "__proto__") {
        dropped.push(trailPointer(trailTo(path, k)));
        continue;
      }
      const c = cloneJson((v as Record<string, unknown>)[k], dropped, trailTo(path, k), ancestors);
      if (c !== undefined) out[k] = c;
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

/** The TipoeCF sent; when none is, the type its e-NCF (or the assigned one) carries. */
function tipoFrom(doc: unknown, context: ValidationContext): TipoeCF | undefined {
  const raw = textOf(objAt(doc, "Encabezado", "IdDoc"), "TipoeCF");
  if (isTipoeCF(raw)) return raw;
  if (raw === undefined) return parseENcf(textOf(objAt(doc, "Encabezado", "IdDoc"), "eNCF") ?? context.eNCF)?.tipo;
  return undefined;
}

/** One problem per path and code (the steps overlap): the first one reported stays. */
function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates and completes an e-CF request. Never throws: any JSON input (null, arrays, strings,
 * deep garbage) yields problems. `ok` is true when no problem is an error.
 */
export function validateEcf(input: unknown, context: ValidationContext): ValidationResult {
  try {
    return validateUnsafe(input, context);
  } catch (err) {
    // A bug here must not take a request down: report it as a problem.
    return {
      ok: false,
      document: {},
      problems: [
        problem(
          "",
          "internal_error",
          "error",
          `Validation failed unexpectedly: ${String(err)}`,
          `La validación falló inesperadamente: ${String(err)}`,
          jsonMappingRule("validateEcf reports every problem and never throws"),
        ),
      ],
    };
  }
}

/** validateEcf's steps in order (the copy, the shape, the type, completion, then the checks). */
function validateUnsafe(input: unknown, context: ValidationContext): ValidationResult {
  if (!isObject(input)) return notAnObject();
  const dropped: string[] = [];
  const doc = cloneJson(input, dropped) as JsonObject;
  const problems: Problem[] = dropped.map((path) => droppedKeyProblem(path));
  problems.push(...shapeProblems(doc));
  const tipo = tipoFrom(doc, context);
  if (!tipo) return untypedResult(doc, problems);

  const completion = complete(doc, tipo, context);
  const canonical = canonicalize(doc, tipo);
  const document = canonical.document;
  problems.push(...canonical.problems);
  problems.push(...checkStructure(document, tipo));
  problems.push(...obligationProblems(document, tipo, completion.montoTotal));
  problems.push(...completion.problems);
  problems.push(...idProblems(document, tipo));
  problems.push(...dateProblems(document, tipo));
  problems.push(...typeRules(document, tipo, completion.montoTotal));
  problems.push(...modifiedReceiptProblems(document, tipo, completion.montoTotal, context));
  const all = dedupe(problems);
  return { ok: !all.some((p) => p.severity === "error"), document, problems: all };
}

function notAnObject(): ValidationResult {
  return {
    ok: false,
    document: {},
    problems: [
      problem(
        "",
        "invalid_type",
        "error",
        "The e-CF must be a JSON object",
        "El e-CF debe ser un objeto JSON",
        jsonMappingRule("the e-CF is a JSON object mirroring the XML root ECF"),
      ),
    ],
  };
}

/** A `__proto__` key the copy left out (see cloneJson). */
function droppedKeyProblem(path: string): Problem {
  return problem(
    path,
    "unknown_field",
    "error",
    "__proto__ is not an e-CF element",
    "__proto__ no es un elemento del e-CF",
    jsonMappingRule("keys are DGII element names"),
  );
}

/** The two containers every e-CF has: Encabezado (an object) and DetallesItems (a non-empty array). */
function shapeProblems(doc: JsonObject): Problem[] {
  const out: Problem[] = [];
  if (!isObject(doc.Encabezado)) {
    const wrongShape = isPresent(doc.Encabezado);
    out.push(
      problem(
        "/Encabezado",
        wrongShape ? "invalid_type" : "required",
        "error",
        "Encabezado is required and must be an object",
        "Encabezado es obligatorio y debe ser un objeto",
        wrongShape
          ? jsonMappingRule("Encabezado is an object (formato-ecf: Encabezado (1))")
          : "formato-ecf: Encabezado (1)",
      ),
    );
  }
  if (!Array.isArray(doc.DetallesItems) || doc.DetallesItems.length === 0) {
    const missing = Array.isArray(doc.DetallesItems) || !isPresent(doc.DetallesItems);
    out.push(
      problem(
        "/DetallesItems",
        missing ? "required" : "invalid_type",
        "error",
        "DetallesItems must be an array with at least one line",
        "DetallesItems debe ser una lista con al menos una línea",
        missing
          ? "formato-ecf: Detalle de Bienes o Servicios (1)"
          : jsonMappingRule("DetallesItems is the array of the XML's DetallesItems/Item"),
      ),
    );
  }
  return out;
}

/**
 * Without a type the type's schema cannot be read, but the checks that need none still run:
 * a bad TipoeCF does not hide a bad RNC or date.
 */
function untypedResult(doc: JsonObject, problems: Problem[]): ValidationResult {
  const raw = objAt(doc, "Encabezado", "IdDoc")?.TipoeCF;
  problems.push(
    problem(
      "/Encabezado/IdDoc/TipoeCF",
      isPresent(raw) ? "invalid_value" : "required",
      "error",
      "TipoeCF must be one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
      "TipoeCF debe ser uno de 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
      "formato-ecf: TipoeCF (1)",
      isPresent(raw) ? { value: raw } : undefined,
    ),
  );
  problems.push(...idProblems(doc, undefined), ...dateProblems(doc, undefined));
  return { ok: false, document: doc, problems: dedupe(problems) };
}
