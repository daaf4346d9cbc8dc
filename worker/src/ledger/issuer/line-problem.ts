// One bad line (or cell) of an imported file, in a module of its own: the issuer object names the
// lines an import refuses without loading the CSV reader and the products' zod schemas at start-up.
import type { ProblemItem } from "../../errors/problem.ts";

/** One bad line (or cell) of an imported file, as the 422 problem lists it. */
export interface LineProblem extends ProblemItem {
  line: number;
  column: string | null;
  detail: string;
}

export function lineProblem(line: number, column: string | null, detail: string, code = "invalid"): LineProblem {
  return { line, column, detail, path: `/line/${line}${column ? `/${column}` : ""}`, code, message: detail };
}
