/**
 * Structure check of a JSON document against its XSD model: unknown elements, wrong JSON shape,
 * too many occurrences, and leaf formats against the simple-type facets. Missing required
 * elements are NOT reported here: the obligation matrix owns that (it knows the conditions).
 */
import { jsonMappingRule, trailPointer, trailTo, type Problem, type Trail } from "../problems.ts";
import { checkFacets } from "./facets.ts";
import { documentModel, type DocumentKind, type ModelElement } from "./model.ts";

type Path = Trail | null;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || v === "";
}

const SHAPE_EN = { leaf: "a text or number value", object: "an object", array: "an array" } as const;
const SHAPE_ES = { leaf: "un valor de texto o número", object: "un objeto", array: "un arreglo" } as const;

function typeProblem(path: Path, el: ModelElement, got: unknown): Problem {
  const gotName = Array.isArray(got) ? "array" : got === null ? "null" : typeof got;
  return {
    path: trailPointer(path),
    code: "invalid_type",
    message: `${el.name} must be ${SHAPE_EN[el.shape]}, got ${gotName}`,
    messageEs: `${el.name} debe ser ${SHAPE_ES[el.shape]}, se recibió ${gotName}`,
    severity: "error",
    // A JSON value of the wrong kind is a problem of our mapping; the element itself is the XSD's.
    rule: jsonMappingRule(
      `${el.name} is ${SHAPE_EN[el.shape]} (xsd:element ${el.name}${el.shape === "array" ? ", a repeated group" : ""})`,
    ),
  };
}

function tooMany(path: Path, el: ModelElement, count: number): Problem {
  return {
    path: trailPointer(path),
    code: "too_many",
    message: `${el.name} may occur at most ${el.maxOccurs} times, got ${count}`,
    messageEs: `${el.name} puede aparecer como máximo ${el.maxOccurs} veces, se recibieron ${count}`,
    severity: "error",
    rule: `xsd:maxOccurs ${el.name} = ${el.maxOccurs}`,
    details: { maxOccurs: el.maxOccurs, count },
  };
}

/** A leaf at `token` under `up`: its trail is made only for a problem (most leaves have none). */
function checkLeaf(v: unknown, el: ModelElement, up: Path, token: string | number, out: Problem[]): void {
  let text: string;
  if (typeof v === "string") text = v;
  else if (typeof v === "number" && Number.isFinite(v)) text = String(v);
  else {
    out.push(typeProblem(trailTo(up, token), el, v));
    return;
  }
  const bad = checkFacets(text, el.simpleType!);
  if (bad) {
    out.push({
      path: trailPointer(trailTo(up, token)),
      code: "invalid_format",
      message: `${el.name} ${bad.message}`,
      messageEs: `${el.name} ${bad.messageEs}`,
      severity: "error",
      rule: `${bad.rule} (${el.name})`,
      details: { value: text, ...bad.details },
    });
  }
}

function checkOne(v: unknown, el: ModelElement, path: Path, out: Problem[]): void {
  switch (el.shape) {
    case "leaf":
      checkLeaf(v, el, path?.up ?? null, path?.token ?? "", out);
      return;
    case "object":
      if (!isPlainObject(v)) out.push(typeProblem(path, el, v));
      else checkObject(v, el, path, out);
      return;
    case "array": {
      if (!Array.isArray(v)) {
        out.push(typeProblem(path, el, v));
        return;
      }
      const item = el.item!;
      if (v.length > item.maxOccurs) out.push(tooMany(path, item, v.length));
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x === null || x === undefined) out.push(typeProblem(trailTo(path, i), item, x));
        else checkOne(x, item, trailTo(path, i), out);
      }
      return;
    }
    default: {
      const never: never = el.shape;
      throw new Error(`unknown shape ${String(never)}`);
    }
  }
}

function checkObject(obj: Record<string, unknown>, el: ModelElement, path: Path, out: Problem[]): void {
  for (const key in obj) {
    const v = obj[key];
    const child = el.childByName!.get(key);
    if (!child) {
      out.push({
        path: trailPointer(trailTo(path, key)),
        code: "unknown_field",
        message: `${key} is not an element of ${el.name}`,
        messageEs: `${key} no es un elemento de ${el.name}`,
        severity: "error",
        rule: `xsd:sequence ${el.name}`,
      });
      continue;
    }
    if (isAbsent(v)) continue;
    if (child.repeated && child.shape !== "array" && Array.isArray(v)) {
      const p = trailTo(path, key);
      if (v.length > child.maxOccurs) out.push(tooMany(p, child, v.length));
      for (let i = 0; i < v.length; i++) checkOne(v[i], child, trailTo(p, i), out);
    } else if (child.shape === "leaf") {
      checkLeaf(v, child, path, key, out);
    } else {
      checkOne(v, child, trailTo(path, key), out);
    }
  }
}

/** Structure and format problems of `document` (the content of the root element) for `kind`. */
export function checkStructure(document: unknown, kind: DocumentKind): Problem[] {
  const model = documentModel(kind);
  const out: Problem[] = [];
  if (!isPlainObject(document)) {
    out.push(typeProblem(null, model.root, document));
    return out;
  }
  checkObject(document, model.root, null, out);
  return out;
}
