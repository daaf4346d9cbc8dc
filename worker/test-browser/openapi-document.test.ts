// The published /openapi.json as a client reads it: a valid OpenAPI 3.1 document (the OpenAPI
// schemas, @seriousme/openapi-schema-validator), whose every example is valid against the schema
// it illustrates (Ajv, JSON Schema 2020-12, the document's own $refs): the e-CF requests against
// EcfRequest (exactly one of its ten types), the problems against Problem.
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, inject, it } from "vitest";

type Json = Record<string, any>;
const BASE = "https://ecf-edge.test/openapi.json";
let doc: Json;
let ajv: Ajv2020;

beforeAll(async () => {
  doc = (await (await fetch(`${inject("workerUrl")}/openapi.json`)).json()) as Json;
  // OpenAPI's own keywords (example, discriminator…) are not JSON Schema's: not strict.
  ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema({ $id: BASE, components: doc.components });
});

const validate = (ref: string, value: unknown) => {
  const check = ajv.getSchema(`${BASE}${ref.replace(/^#/, "#")}`)!;
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

/** Every media type object of every operation's request body and responses. */
function mediaTypes(): { where: string; type: string; media: Json }[] {
  const out: { where: string; type: string; media: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json))
        out.push({ where: `${method.toUpperCase()} ${path} body`, type, media });
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json))
        for (const [type, media] of Object.entries((response.content ?? {}) as Json))
          out.push({ where: `${method.toUpperCase()} ${path} ${status}`, type, media });
    }
  }
  return out;
}

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("every e-CF request example is valid against EcfRequest, through exactly one of its ten types", () => {
    const media = doc.paths["/fe/recepcion/ecf"].post.requestBody.content["application/json"];
    const branches = (doc.components.schemas.EcfRequest.oneOf as { $ref: string }[]).map((b) => b.$ref);
    expect(branches).toHaveLength(10);
    for (const [key, example] of Object.entries(media.examples as Record<string, { value: unknown }>)) {
      expect(validate(media.schema.$ref, example.value), key).toEqual([]);
      expect(
        branches.filter((ref) => validate(ref, example.value).length === 0),
        key,
      ).toEqual([`#/components/schemas/EcfRequest${key.slice(0, 3)}`]);
    }
  });

  it("every problem example is a valid Problem with the status it documents", () => {
    const problems = mediaTypes().filter((m) => m.type === "application/problem+json");
    expect(problems.length).toBeGreaterThan(50);
    for (const { where, media } of problems) {
      expect(media.examples, where).toBeDefined();
      for (const { $ref } of Object.values(media.examples as Record<string, { $ref: string }>)) {
        const example = doc.components.examples[$ref.replace("#/components/examples/", "")];
        expect(validate(media.schema.$ref, example.value), `${where} ${$ref}`).toEqual([]);
        expect(String(example.value.status), `${where} ${$ref}`).toBe(where.split(" ").at(-1));
      }
    }
  });
});
