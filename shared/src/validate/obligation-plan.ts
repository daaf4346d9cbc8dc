/**
 * The obligation matrix of formato-ecf (0 prohibited, 1 required, 2 conditional) applied to a
 * canonical document. Each type's fields are planned once (only those that can produce a problem,
 * with the walk to each container shared by prefix), so a request pays only for the walk.
 */
import { CONDITIONS, type Condition } from "../ecf-rules.ts";
import type { Decimal } from "../money.ts";
import { FIELD_PATHS, arrayChild, obligationOf, type ObligationCode } from "../obligations.ts";
import { problem, trailPointer, trailTo, type Problem, type Trail } from "../problems.ts";
import type { TipoeCF } from "../tipos.ts";
import { isObject, isPresent, type JsonObject } from "../totals-read.ts";

interface Node {
  trail: Trail | null;
  node: unknown;
}

/**
 * The nodes holding a field's `depth`-th segment (reached by its first `depth` segments), arrays
 * expanded. Memoized by prefix in `memo`, so the many fields of one line share the walk to it.
 */
function containersAt(doc: JsonObject, field: PlannedField, depth: number, memo: (Node[] | undefined)[]): Node[] {
  if (depth === 0) return [{ trail: null, node: doc }];
  const key = field.prefixes[depth]!;
  const hit = memo[key];
  if (hit) return hit;
  const seg = field.segments[depth - 1]!;
  const out: Node[] = [];
  for (const f of containersAt(doc, field, depth - 1, memo)) {
    if (field.arrayAfter[depth - 1]) {
      if (Array.isArray(f.node)) f.node.forEach((el, i) => out.push({ trail: trailTo(f.trail, i), node: el }));
    } else if (isObject(f.node) && f.node[seg] !== undefined) {
      out.push({ trail: trailTo(f.trail, seg), node: f.node[seg] });
    }
  }
  memo[key] = out;
  return out;
}

const FILLED_AT_SIGNING = new Set(["FechaHoraFirma"]);

interface PlannedField {
  path: string;
  name: string;
  code: ObligationCode;
  segments: string[];
  /** For each segment: is it the repeated child of the array container before it? */
  arrayAfter: boolean[];
  /** For each depth, the number of the path of the segments above it (the memo key of containersAt). */
  prefixes: number[];
  /** For code 2, when it is required. */
  condition: Condition | undefined;
  tipo: TipoeCF;
}

/** The holder of an element of a repeated group (conditions on it see no siblings). */
const EMPTY_HOLDER: JsonObject = Object.freeze({});

/** Per type, only the fields that can produce a problem (codes 0 and 1, and 2 with a condition). */
interface Plan {
  fields: PlannedField[];
  /** How many distinct prefixes the fields' paths have (the size of containersAt's memo). */
  prefixCount: number;
}

const plans = new Map<TipoeCF, Plan>();
function planFor(tipo: TipoeCF): Plan {
  const known = plans.get(tipo);
  if (known) return known;
  const fields: PlannedField[] = [];
  const prefixNumbers = new Map<string, number>();
  const numberOf = (prefix: string) =>
    prefixNumbers.get(prefix) ?? prefixNumbers.set(prefix, prefixNumbers.size).get(prefix)!;
  for (const path of FIELD_PATHS) {
    const code = obligationOf(path, tipo) as ObligationCode;
    if (code === 3 || (code === 2 && !CONDITIONS[path]) || (code === 1 && FILLED_AT_SIGNING.has(path))) continue;
    const segments = path.split("/");
    const arrayAfter = segments.map((seg, i) => i > 0 && arrayChild(segments.slice(0, i).join("/")) === seg);
    const prefixes = segments.map((_, i) => numberOf(segments.slice(0, i).join("/")));
    fields.push({
      path,
      name: segments[segments.length - 1]!,
      code,
      segments,
      arrayAfter,
      prefixes,
      tipo,
      condition: CONDITIONS[path],
    });
  }
  const plan = { fields, prefixCount: prefixNumbers.size };
  plans.set(tipo, plan);
  return plan;
}

/** The obligation matrix (and its evaluable conditions) applied to a canonical document. */
export function obligationProblems(doc: JsonObject, tipo: TipoeCF, montoTotal: Decimal): Problem[] {
  const out: Problem[] = [];
  const plan = planFor(tipo);
  const memo = new Array<Node[] | undefined>(plan.prefixCount);
  for (const field of plan.fields) {
    const depth = field.segments.length - 1;
    const seg = field.segments[depth]!;
    const overArray = field.arrayAfter[depth];
    // Only a present prohibited field or an absent required (or conditional) one can be a problem.
    const judgeWhenPresent = field.code === 0;
    const containers = containersAt(doc, field, depth, memo);
    for (let k = 0; k < containers.length; k++) {
      const f = containers[k]!;
      const node = f.node;
      if (overArray) {
        if (!Array.isArray(node)) continue;
        for (let i = 0; i < node.length; i++) {
          if (isPresent(node[i]) === judgeWhenPresent)
            judgeField(out, field, doc, montoTotal, node[i], EMPTY_HOLDER, f.trail, i);
        }
      } else if (isObject(node)) {
        const value = node[seg];
        if (isPresent(value) === judgeWhenPresent) judgeField(out, field, doc, montoTotal, value, node, f.trail, seg);
      }
    }
  }
  return out;
}

/** One occurrence of a planned field (at `token` under `trail`) against its obligation code. */
function judgeField(
  out: Problem[],
  field: PlannedField,
  doc: JsonObject,
  montoTotal: Decimal,
  value: unknown,
  holder: JsonObject,
  trail: Trail | null,
  token: string | number,
): void {
  const { name, code, tipo } = field;
  const present = isPresent(value);
  if (code === 0 && present) {
    out.push(
      problem(
        trailPointer(trailTo(trail, token)),
        "prohibited",
        "error",
        `${name} must not appear in an e-CF of type ${tipo}`,
        `${name} no corresponde en un e-CF tipo ${tipo}`,
        `formato-ecf: ${name} (${tipo}: 0)`,
      ),
    );
  } else if (code === 1 && !present) {
    out.push(
      problem(
        trailPointer(trailTo(trail, token)),
        "required",
        "error",
        `${name} is required in an e-CF of type ${tipo}`,
        `${name} es obligatorio en un e-CF tipo ${tipo}`,
        `formato-ecf: ${name} (${tipo}: 1)`,
      ),
    );
  } else if (code === 2 && !present) {
    const cond = field.condition!;
    if (cond.applies({ doc, tipo, holder, montoTotal })) {
      out.push(
        problem(
          trailPointer(trailTo(trail, token)),
          "required",
          "error",
          `${name} is required when ${cond.en}`,
          `${name} es obligatorio cuando ${cond.es}`,
          `formato-ecf: ${name} (${tipo}: 2): ${cond.en}`,
        ),
      );
    }
  }
}
