import { ecfToXml, signEcfXml, type TipoeCF } from "@ecf/shared";
import { validateXsd, validateXsdMany } from "@ecf/shared/xml/xsd-validate";
import { describe, expect, it } from "vitest";
import { testIdentity } from "@ecf/shared/test-support/certs";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { XsdBatcher } from "../src/xsd-batcher.ts";

describe("XsdBatcher", () => {
  it("gives each document its own result, as validateXsd alone would, in fewer libxml2 runs", async () => {
    const identity = await testIdentity();
    const sign = (xml: string) => signEcfXml(xml, identity.privateKey, identity.certificateDer);
    const documents: [string, TipoeCF, string][] = [
      ["valid E31", "31", await sign(ecfToXml(makeEcf("31", { sequence: 1 })))],
      [
        "E31 with a bad TipoIngresos",
        "31",
        await sign(ecfToXml(makeEcf("31", { sequence: 2 })).replace("<TipoIngresos>01<", "<TipoIngresos>99<")),
      ],
      ["valid E31 again", "31", await sign(ecfToXml(makeEcf("31", { sequence: 3 })))],
      ["unsigned E31", "31", ecfToXml(makeEcf("31", { sequence: 4 }))],
      ["valid E33", "33", await sign(ecfToXml(makeEcf("33", { sequence: 5 })))],
    ];
    let runs = 0;
    const batcher = new XsdBatcher((xmls, kind, options) => {
      runs += 1;
      return validateXsdMany(xmls, kind, options);
    });
    const batched = await Promise.all(documents.map(([, kind, xml]) => batcher.validate(xml, kind)));
    const alone = await Promise.all(
      documents.map(([, kind, xml]) => validateXsd(xml, kind, { requireSignature: true })),
    );

    expect(batched.map((r) => r.valid)).toEqual([true, false, true, false, true]);
    expect(batched.map((r) => r.valid)).toEqual(alone.map((r) => r.valid));
    expect(batched[1]!.errors.join(" ")).toMatch(/TipoIngresos/);
    expect(runs).toBeLessThan(documents.length);
  });

  it("rejects every waiting document when the run itself fails", async () => {
    const batcher = new XsdBatcher(() => Promise.reject(new Error("libxml2 unavailable")));
    const results = await Promise.allSettled([batcher.validate("<ECF/>", "31"), batcher.validate("<ECF/>", "31")]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
