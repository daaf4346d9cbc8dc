// The contract an integrator reads in /openapi.json: every operation (and every webhook) named,
// summarised and described; every 2xx JSON answer with a schema that says what comes back, all the
// way down (no `{}`, no "any"); tags declared with a description, in the order an integrator meets
// them. Read from a running worker (test-browser/global-setup.ts), as an SDK generator reads it.
import { beforeAll, describe, expect, inject, it } from "vitest";

type Json = Record<string, any>;
let doc: Json;

beforeAll(async () => {
  doc = (await (await fetch(`${inject("workerUrl")}/openapi.json`)).json()) as Json;
});

const METHODS = new Set(["get", "put", "post", "patch", "delete", "head", "options"]);

/** Every operation of the document: the paths' and the webhooks'. */
function operations(): { where: string; op: Json; webhook: boolean }[] {
  const out: { where: string; op: Json; webhook: boolean }[] = [];
  for (const [key, webhook] of [
    ["paths", false],
    ["webhooks", true],
  ] as const) {
    for (const [path, item] of Object.entries((doc[key] ?? {}) as Json)) {
      for (const [method, op] of Object.entries(item as Json))
        if (METHODS.has(method)) out.push({ where: `${method.toUpperCase()} ${path}`, op, webhook });
    }
  }
  return out;
}

const resolve = (schema: Json): Json => {
  let s = schema;
  for (let hops = 0; s?.$ref && hops < 20; hops++)
    s = doc.components.schemas[String(s.$ref).replace("#/components/schemas/", "")];
  return s;
};

// Keywords that describe a value without constraining it: a schema made only of these accepts anything.
const ANNOTATIONS = new Set([
  "description",
  "deprecated",
  "example",
  "examples",
  "title",
  "default",
  "readOnly",
  "writeOnly",
]);

/** JSON pointers of the schemas below `schema` that accept anything (`{}` or only annotations). */
function anySchemas(
  schema: Json | boolean | undefined,
  where: string,
  out: string[] = [],
  seen = new Set<string>(),
): string[] {
  if (schema === true || schema === undefined || schema === null) return [...out, where];
  if (schema === false) return out;
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return out;
    seen.add(schema.$ref);
    return anySchemas(resolve(schema), `${where}→${String(schema.$ref).split("/").at(-1)}`, out, seen);
  }
  if (Object.keys(schema).every((k) => ANNOTATIONS.has(k))) return [...out, where];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json))
    anySchemas(property, `${where}.${name}`, out, seen);
  if (schema.items) anySchemas(schema.items, `${where}[]`, out, seen);
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    anySchemas(schema.additionalProperties, `${where}{*}`, out, seen);
  for (const key of ["oneOf", "anyOf", "allOf"])
    ((schema[key] ?? []) as Json[]).forEach((branch, i) => anySchemas(branch, `${where}|${key}[${i}]`, out, seen));
  return out;
}

/** The tags in the order an integrator meets them; others' tags may follow, not come between. */
const GUIDE = [
  "Authentication",
  "Company",
  "Issuing",
  "Receipts",
  "Receiving",
  "Purchases",
  "Reports",
  "Archive",
  "Webhooks",
  "Devices",
  "Administration",
  "Service",
];

describe("/openapi.json as a contract", () => {
  it("every operation has an operationId, a summary and a description of its own", () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(60);
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const { where, op, webhook } of ops) {
      if (!webhook) {
        if (typeof op.operationId !== "string" || !op.operationId) problems.push(`${where}: no operationId`);
        else if (ids.has(op.operationId)) problems.push(`${where}: operationId ${op.operationId} twice`);
        ids.add(op.operationId);
      }
      if (typeof op.summary !== "string" || op.summary.trim().length < 10) problems.push(`${where}: no summary`);
      const description = typeof op.description === "string" ? op.description.trim() : "";
      // A sentence or two for an integrator: more than a label, not the summary said again.
      if (description.length < 60 || !/[.!?`)]$/.test(description))
        problems.push(`${where}: no description of a sentence or more`);
      else if (description.toLowerCase().startsWith(String(op.summary).trim().toLowerCase()))
        problems.push(`${where}: the description repeats the summary`);
    }
    expect(problems).toEqual([]);
  });

  it("every 2xx JSON answer has a schema that says what comes back, all the way down", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        if (!status.startsWith("2")) continue;
        for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
          if (!/json/.test(type)) continue;
          checked++;
          for (const any of anySchemas(media.schema, ""))
            problems.push(`${where} ${status} ${type}: schema${any || " itself"} accepts anything`);
        }
      }
    }
    expect(checked).toBeGreaterThan(55);
    expect(problems).toEqual([]);
  });

  it("a 2xx without content is only a 204, or a webhook's acknowledgment", () => {
    const problems: string[] = [];
    for (const { where, op, webhook } of operations()) {
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        if (status.startsWith("2") && status !== "204" && !webhook && !response.content)
          problems.push(`${where} ${status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("tags read as a guide: each declared with a description, in the integrator's order, each used", () => {
    const declared = ((doc.tags ?? []) as { name: string; description?: string }[]).map((t) => t.name);
    for (const tag of (doc.tags ?? []) as { name: string; description?: string }[])
      expect(tag.description?.length ?? 0, tag.name).toBeGreaterThan(40);
    expect(declared.filter((name) => GUIDE.includes(name))).toEqual(GUIDE);
    const used = new Set(operations().flatMap(({ op }) => (op.tags ?? []) as string[]));
    expect(
      [...used].filter((tag) => !declared.includes(tag)),
      "tags used but not declared",
    ).toEqual([]);
    expect(
      declared.filter((tag) => !used.has(tag)),
      "tags declared but unused",
    ).toEqual([]);
    for (const { where, op } of operations()) expect((op.tags ?? []).length, where).toBeGreaterThan(0);
  });
});
