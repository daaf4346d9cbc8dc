// One name per fact, and the interface's names as the only ones: checked over the whole published
// document (every schema, parameter and webhook of /openapi.json), not route by route.
import { beforeAll, describe, expect, it } from "vitest";
import { API_VERSION } from "../src/version.ts";
import { call } from "./support/http.ts";

type Json = Record<string, any>;
let doc: Json;

beforeAll(async () => {
  doc = (await (await call("/openapi.json")).json()) as Json;
});

/** Every object under `node` with the JSON pointer it sits at. */
function* objectsIn(node: unknown, pointer = ""): Generator<[string, Json]> {
  if (node === null || typeof node !== "object") return;
  if (!Array.isArray(node)) yield [pointer, node as Json];
  for (const [key, child] of Object.entries(node))
    yield* objectsIn(child, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
}

/** Properties (and parameters) marked deprecated, by pointer. */
function deprecatedIn(document: Json): string[] {
  const found: string[] = [];
  for (const [pointer, object] of objectsIn(document)) {
    if (
      object.deprecated === true &&
      (/\/properties\/[^/]+$/.test(pointer) || /\/parameters\/\d+$/.test(pointer) || /\/schema$/.test(pointer))
    )
      found.push(pointer);
  }
  return found;
}

/**
 * Schemas in which two properties say the same thing (the same description): a fact under two
 * names. The e-CF request schemas are DGII's document, element for element: their descriptions
 * are DGII's obligation notes shared by distinct elements ("written dd-mm-yyyy"), not meanings.
 */
function twinsIn(document: Json): string[] {
  const found: string[] = [];
  for (const [pointer, object] of objectsIn(document)) {
    if (pointer.startsWith("/components/schemas/EcfRequest")) continue;
    const properties = object.properties;
    if (!properties || typeof properties !== "object" || Array.isArray(properties)) continue;
    const byDescription = new Map<string, string[]>();
    for (const [name, property] of Object.entries(properties as Record<string, Json>)) {
      const description = typeof property?.description === "string" ? property.description.trim().toLowerCase() : "";
      if (!description) continue;
      byDescription.set(description, [...(byDescription.get(description) ?? []), name]);
    }
    for (const [description, names] of byDescription)
      if (names.length > 1) found.push(`${pointer}: ${names.join(", ")} (${description})`);
  }
  return found;
}

describe("/openapi.json: one name per fact", () => {
  it("is version 1.12.0 and marks nothing deprecated", () => {
    expect(API_VERSION).toBe("1.12.0");
    expect(doc.info.version).toBe(API_VERSION);
    expect(deprecatedIn(doc)).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/deprecated since|removed in 1\.9\.0/i);
  });

  it("has no schema with two properties described alike", () => {
    expect(twinsIn(doc)).toEqual([]);
  });

  it("the checks find what they look for (a twin, a deprecated property)", () => {
    const planted = {
      components: {
        schemas: {
          X: {
            type: "object",
            properties: {
              legalName: { type: "string", description: "Legal name" },
              name: { type: "string", description: "Legal name", deprecated: true },
            },
          },
        },
      },
    };
    expect(deprecatedIn(planted)).toEqual(["/components/schemas/X/properties/name"]);
    expect(twinsIn(planted)).toEqual(["/components/schemas/X: legalName, name (legal name)"]);
  });

  it("the interface's names are the only names of its resources", () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    // GET /company/me: the interface's profile, plus the service's settings (totalsPolicy, the
    // crédito fiscal pair) and warnings.
    expect(Object.keys(schemas.CompanyProfile!.properties).sort()).toEqual(
      [
        "id",
        "name",
        "registryNumber",
        "isActive",
        "dgiiServer",
        "invoicesCountCurrentMonth",
        "invoiceLimitPerMonth",
        "signatureName",
        "signatureExpirationDate",
        "totalsPolicy",
        "creditoFiscalApproval",
        "creditoFiscalE32",
        "warnings",
      ].sort(),
    );
    expect(schemas.CompanyProfile!.properties.dgiiServer.enum).toEqual(["testecf", "certecf", "ecf"]);
    // The administration and device views of the same issuer use the same names.
    for (const view of ["AdminCompany", "DeviceCompany"]) {
      expect(Object.keys(schemas[view]!.properties), view).toEqual(
        expect.arrayContaining(["name", "registryNumber", "dgiiServer"]),
      );
      expect(Object.keys(schemas[view]!.properties), view).not.toEqual(expect.arrayContaining(["legalName"]));
      expect(Object.keys(schemas[view]!.properties), view).not.toContain("rnc");
      expect(Object.keys(schemas[view]!.properties), view).not.toContain("dgiiEnvironment");
    }
    for (const input of ["CompanyInput", "CompanyPatch"]) {
      expect(Object.keys(schemas[input]!.properties), input).toEqual(expect.arrayContaining(["name", "dgiiServer"]));
    }
    // The issuing answer: codigo, estado and reenviado, and no second name for a resend.
    const answer = Object.keys(schemas.IssueAnswer!.properties);
    expect(answer).toEqual(expect.arrayContaining(["codigo", "estado", "reenviado"]));
    expect(answer).not.toContain("resent");
    // The login exchange and the approval upload's part.
    expect(
      Object.keys(
        schemas.LoginRequest?.properties ??
          doc.paths["/login"].post.requestBody.content["application/json"].schema.properties,
      ).sort(),
    ).toEqual(["apiKey", "apiSecret"]);
    const upload = doc.paths["/fe/aprobacioncomercial/api/ecf"].post.requestBody.content["multipart/form-data"].schema;
    expect(Object.keys(upload.properties ?? schemas[upload.$ref?.split("/").pop()]?.properties)).toEqual(["xml"]);
    // Reports filter by Desde/Hasta only.
    const reportParams = (doc.paths["/reports/encf"].get.parameters as Json[])
      .filter((p) => p.in === "query")
      .map((p) => p.name);
    expect(reportParams).toEqual(expect.arrayContaining(["Desde", "Hasta"]));
    expect(reportParams).not.toContain("desde");
    expect(reportParams).not.toContain("hasta");
  });
});
