// The examples /openapi.json shows for POST /fe/recepcion/ecf are real requests: each one is issued
// through the route as published, accepted by the DGII sandbox, and its signed XML verifies and
// passes DGII's XSD. The document carries the per-type schemas and the problem examples.
import { validateXsdModel, verifyXml, type TipoeCF } from "@ecf/shared";
import { beforeAll, describe, expect, it } from "vitest";
import { ECF_REQUEST_EXAMPLES } from "../src/generated/ecf-examples.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issuer, received } from "./support/issuing.ts";

type Json = Record<string, any>;
let account: { company: { rnc: string }; token: string };

beforeAll(async () => {
  account = await issuer();
});

describe("every request example of POST /fe/recepcion/ecf", () => {
  it("covers the ten types, an E32 under and one over DOP 250,000", () => {
    expect(Object.keys(ECF_REQUEST_EXAMPLES)).toEqual([
      "E31",
      "E32",
      "E32-250000",
      "E33",
      "E34",
      "E41",
      "E43",
      "E44",
      "E45",
      "E46",
      "E47",
    ]);
  });

  it.each(Object.entries(ECF_REQUEST_EXAMPLES))(
    "%s is issued, accepted, and its signed XML passes the XSD",
    async (_key, example) => {
      const tipo = String((example.value as Json).Encabezado.IdDoc.TipoeCF) as TipoeCF;
      const { status, body } = await issue(account.token, example.value);
      expect(body.mensajes, JSON.stringify(body)).toEqual([]);
      expect(status).toBe(200);
      expect(body).toMatchObject({ estado: "Aceptado", reenviado: false });
      expect(body.encf).toMatch(new RegExp(`^E${tipo}\\d{10}$`));
      const xml = await (await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(account.token) })).text();
      expect((await verifyXml(xml)).ok).toBe(true);
      expect(validateXsdModel(xml, tipo)).toEqual({ valid: true, errors: [] });
      const rfce = tipo === "32" && !(example.value as Json).Encabezado.Comprador.RNCComprador;
      expect((await received(account.company.rnc, body.encf)).map((r) => r.kind)).toEqual([rfce ? "rfce" : "ecf"]);
    },
  );
});

describe("/openapi.json", () => {
  let doc: Json;
  beforeAll(async () => {
    doc = (await (await call("/openapi.json")).json()) as Json;
  });

  it("the issuing body refers to EcfRequest, one of the ten per-type schemas, with the examples", () => {
    const media = doc.paths["/fe/recepcion/ecf"].post.requestBody.content["application/json"];
    expect(media.schema).toEqual({ $ref: "#/components/schemas/EcfRequest" });
    expect(Object.keys(media.examples)).toEqual(Object.keys(ECF_REQUEST_EXAMPLES));
    const union = doc.components.schemas.EcfRequest;
    expect(union.oneOf).toHaveLength(10);
    for (const { $ref } of union.oneOf as { $ref: string }[]) {
      const schema = doc.components.schemas[$ref.replace("#/components/schemas/", "")];
      expect(schema, $ref).toMatchObject({
        type: "object",
        additionalProperties: false,
        required: expect.arrayContaining(["Encabezado", "DetallesItems"]),
      });
    }
  });

  it("problem responses carry examples of their status, shared under components.examples", () => {
    const responses = doc.paths["/fe/recepcion/ecf"].post.responses;
    for (const status of ["400", "401", "403", "409", "422", "429"]) {
      const examples = responses[status].content["application/problem+json"].examples as Record<
        string,
        { $ref: string }
      >;
      expect(Object.keys(examples).length, status).toBeGreaterThan(0);
      for (const { $ref } of Object.values(examples)) {
        const example = doc.components.examples[$ref.replace("#/components/examples/", "")];
        expect(example.value.status, $ref).toBe(Number(status));
      }
    }
    expect(
      doc.paths["/fe/anulacion"].post.responses["503"].content["application/problem+json"].examples,
    ).toHaveProperty("dgii_unavailable");
    expect(
      doc.paths["/fe/recepcion/ecf/{encf}"].get.responses["404"].content["application/problem+json"].examples,
    ).toHaveProperty("not_found");
  });
});
