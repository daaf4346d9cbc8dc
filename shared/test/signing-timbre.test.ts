// The QR timbre, the security code and FechaHoraFirma.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatDgiiDateTime as fechaHoraFirmaFixedOffset } from "../src/dgii-time.ts";
import { fechaHoraFirma } from "../src/signing/fecha-firma.ts";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { securityCode, timbreForEcf, timbreForSignedEcf, timbreUrl } from "../src/signing/timbre.ts";
import { TIPOS_ECF, type DgiiEnvironment, type TipoeCF } from "../src/tipos.ts";
import { validateEcf } from "../src/validate.ts";
import { ecfToXml } from "../src/xml/serialize.ts";
import { xmlToEcf } from "../src/xml/parse.ts";
import { testIdentity } from "./support/certs.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

const SAMPLES = `${DGII_KIT}/samples`;

describe("timbreUrl", () => {
  it("builds DGII's published consultatimbre example", () => {
    // descripcion-tecnica.txt, "Consulta timbre (QR)": the documented example URL.
    const url = timbreUrl({
      form: "consultatimbre",
      environment: "testecf",
      rncEmisor: "130000001",
      rncComprador: "130000002",
      encf: "e310000000001",
      fechaEmision: "10-10-2020",
      montoTotal: "02.11",
      fechaFirma: "10-10-2020 09:00:00",
      codigoSeguridad: "dcp79q",
    });
    expect(url).toBe(
      "https://ecf.dgii.gov.do/testecf/consultatimbre?RncEmisor=130000001&RncComprador=130000002&ENCF=e310000000001&FechaEmision=10-10-2020&MontoTotal=02.11&FechaFirma=10-10-2020%2009:00:00&CodigoSeguridad=dcp79q",
    );
    // The documented example spells the names in lower case; DGII matches them case-insensitively.
    expect(url.toLowerCase()).toBe(
      "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=130000001&rnccomprador=130000002&encf=e310000000001&fechaemision=10-10-2020&montototal=02.11&fechafirma=10-10-2020%2009:00:00&codigoseguridad=dcp79q",
    );
  });

  it("builds DGII's published consultatimbrefc example", () => {
    const url = timbreUrl({
      form: "consultatimbrefc",
      environment: "testecf",
      rncEmisor: "131880738",
      encf: "E320000000064",
      montoTotal: "6225.09",
      codigoSeguridad: "uabnyh",
    });
    expect(url.toLowerCase()).toBe(
      "https://fc.dgii.gov.do/testecf/consultatimbrefc?rncemisor=131880738&encf=e320000000064&montototal=6225.09&codigoseguridad=uabnyh",
    );
  });

  const environments: Array<[DgiiEnvironment, string, string]> = [
    ["testecf", "https://ecf.dgii.gov.do/testecf/consultatimbre?", "https://fc.dgii.gov.do/testecf/consultatimbrefc?"],
    ["certecf", "https://ecf.dgii.gov.do/certecf/consultatimbre?", "https://fc.dgii.gov.do/certecf/consultatimbrefc?"],
    ["ecf", "https://ecf.dgii.gov.do/ecf/consultatimbre?", "https://fc.dgii.gov.do/ecf/consultatimbrefc?"],
  ];
  it.each(environments)("points %s at its host", (environment, full, short) => {
    const common = {
      environment,
      rncEmisor: "130862346",
      encf: "E310000000001",
      montoTotal: "1.00",
      codigoSeguridad: "abc123",
    };
    expect(
      timbreUrl({
        ...common,
        form: "consultatimbre",
        rncComprador: "131880738",
        fechaEmision: "01-04-2025",
        fechaFirma: "01-04-2025 10:15:00",
      }),
    ).toMatch(new RegExp(`^${full.replace(/[.?]/g, "\\$&")}`));
    expect(timbreUrl({ ...common, form: "consultatimbrefc" })).toMatch(
      new RegExp(`^${short.replace(/[.?]/g, "\\$&")}`),
    );
  });

  it.each([[undefined], [null], [""]])(
    "omits RncComprador when the document has no buyer (%j), as E43 and E47",
    (rncComprador) => {
      const url = timbreUrl({
        form: "consultatimbre",
        environment: "ecf",
        rncEmisor: "130862346",
        rncComprador,
        encf: "E430000000001",
        fechaEmision: "01-04-2025",
        montoTotal: "500.00",
        fechaFirma: "01-04-2025 10:15:00",
        codigoSeguridad: "Ab+/9z",
      });
      expect(url).toBe(
        "https://ecf.dgii.gov.do/ecf/consultatimbre?RncEmisor=130862346&ENCF=E430000000001&FechaEmision=01-04-2025&MontoTotal=500.00&FechaFirma=01-04-2025%2010:15:00&CodigoSeguridad=Ab%2B%2F9z",
      );
    },
  );

  it("URL-encodes every value (a security code may hold + and /)", () => {
    const url = timbreUrl({
      form: "consultatimbrefc",
      environment: "ecf",
      rncEmisor: "1 3&=",
      encf: "E32?#",
      montoTotal: "1.00",
      codigoSeguridad: "+/+/=a",
    });
    expect(url).toBe(
      "https://fc.dgii.gov.do/ecf/consultatimbrefc?RncEmisor=1%203%26%3D&ENCF=E32%3F%23&MontoTotal=1.00&CodigoSeguridad=%2B%2F%2B%2F%3Da",
    );
    expect(new URL(url).searchParams.get("CodigoSeguridad")).toBe("+/+/=a");
  });

  it("refuses a missing required value", () => {
    expect(() =>
      timbreUrl({
        form: "consultatimbrefc",
        environment: "ecf",
        rncEmisor: "",
        encf: "E32",
        montoTotal: "1.00",
        codigoSeguridad: "abcdef",
      }),
    ).toThrow(/RncEmisor/);
  });
});

describe("securityCode and the timbre of a signed document", () => {
  const signed = readFileSync(`${SAMPLES}/dgii-ecf/130862346E310005000201_ecf31_signed.xml`, "utf8");

  it("is the first 6 characters of SignatureValue", () => {
    expect(securityCode(signed)).toBe("c0qwgy");
    expect(securityCode(`<a><ds:SignatureValue Id="x">\n  Q1w2E3r4</ds:SignatureValue></a>`)).toBe("Q1w2E3");
    expect(() => securityCode("<a><b>1</b></a>")).toThrow(/SignatureValue/);
  });

  it("reads the full timbre of an E31", () => {
    const timbre = timbreForSignedEcf(signed, "testecf");
    expect(timbre).toMatchObject({
      form: "consultatimbre",
      rncEmisor: "130862346",
      encf: "E310005000201",
      fechaFirma: "15-07-2023 05:07:00",
      codigoSeguridad: "c0qwgy",
    });
    expect(timbreUrl(timbre)).toMatch(
      /^https:\/\/ecf\.dgii\.gov\.do\/testecf\/consultatimbre\?RncEmisor=130862346&RncComprador=\d{9}&ENCF=E310005000201&FechaEmision=\d\d-\d\d-\d{4}&MontoTotal=[\d.]+&FechaFirma=15-07-2023%2005:07:00&CodigoSeguridad=c0qwgy$/,
    );
  });

  const e32 = (monto: string) =>
    `<ECF><Encabezado><IdDoc><eNCF>E320000000001</eNCF></IdDoc><Emisor><RNCEmisor>130862346</RNCEmisor><FechaEmision>01-04-2025</FechaEmision></Emisor><Totales><MontoTotal>${monto}</MontoTotal></Totales></Encabezado><FechaHoraFirma>01-04-2025 10:15:00</FechaHoraFirma><Signature><SignatureValue>XyZ123abc</SignatureValue></Signature></ECF>`;
  it.each([
    ["249999.99", "consultatimbrefc"],
    ["6225.09", "consultatimbrefc"],
    ["250000.00", "consultatimbre"],
    ["1000000.00", "consultatimbre"],
  ])("E32 with MontoTotal %s uses %s", (monto, form) => {
    const timbre = timbreForSignedEcf(e32(monto), "ecf");
    expect(timbre.form).toBe(form);
    if (timbre.form === "consultatimbre") expect(timbreUrl(timbre)).not.toContain("RncComprador");
  });
});

describe("timbreForEcf: the timbre from the document the signed XML was serialized from", () => {
  const cases = TIPOS_ECF.flatMap((tipo) =>
    ecfCases(tipo).map(([name, options]): [TipoeCF, string, typeof options] => [tipo, name, options]),
  );
  it.each(cases)("E%s %s: the same timbre as read from the signed XML", async (tipo, name, options) => {
    const validation = validateEcf(makeEcf(tipo, options), {
      now: new Date("2026-11-21T12:00:00Z"),
      totalsPolicy: "dgii",
    });
    if (!validation.ok) throw new Error(JSON.stringify(validation.problems));
    const id = await testIdentity();
    const signed = await signEcfXml(ecfToXml(validation.document), id.privateKey, id.certificateDer);
    // The document is what the signed bytes read back as, and gives the same timbre.
    expect(xmlToEcf(signed)).toEqual(validation.document);
    const fromDocument = timbreForEcf(validation.document, securityCode(signed), "certecf");
    expect(fromDocument).toEqual(timbreForSignedEcf(signed, "certecf"));
    // Both forms are covered: a small E32 gets the short one, one above 250,000 DOP the full one.
    if (tipo === "32" && name === "1 line") expect(fromDocument.form).toBe("consultatimbrefc");
    if (options.highValue) expect(fromDocument.form).toBe("consultatimbre");
  });

  it("names the leaf a document lacks", () => {
    expect(() => timbreForEcf({ Encabezado: { IdDoc: { eNCF: "E310000000001" } } }, "abcdef", "ecf")).toThrow(
      /MontoTotal not found/,
    );
  });
});

describe("fechaHoraFirma", () => {
  it.each([
    ["2025-04-01T14:15:00Z", "01-04-2025 10:15:00"],
    ["2025-01-01T03:59:59Z", "31-12-2024 23:59:59"],
    ["2025-01-01T04:00:00Z", "01-01-2025 00:00:00"],
    ["2024-02-29T23:30:05.999Z", "29-02-2024 19:30:05"],
    ["2026-07-15T00:00:00Z", "14-07-2026 20:00:00"],
    ["2026-11-01T06:30:00Z", "01-11-2026 02:30:00"],
    ["2026-03-08T07:00:00Z", "08-03-2026 03:00:00"],
  ])("%s is %s in Santo Domingo", (iso, expected) => {
    expect(fechaHoraFirma(new Date(iso))).toBe(expected);
    expect(fechaHoraFirmaFixedOffset(new Date(iso))).toBe(expected);
  });

  it("agrees with the fixed UTC-4 offset every 7 hours 13 minutes for six years (no DST)", () => {
    const start = Date.UTC(2024, 0, 1);
    const end = Date.UTC(2030, 0, 1);
    let n = 0;
    for (let t = start; t < end; t += (7 * 60 + 13) * 60_000 + 17_000) {
      expect(fechaHoraFirma(new Date(t))).toBe(fechaHoraFirmaFixedOffset(new Date(t)));
      n++;
    }
    expect(n).toBeGreaterThan(7000);
  });

  it("is dd-MM-yyyy HH:mm:ss with a 24-hour clock, and refuses an invalid date", () => {
    expect(fechaHoraFirma(new Date("2025-06-01T16:05:09Z"))).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    expect(fechaHoraFirma(new Date("2025-06-01T16:05:09Z"))).toBe("01-06-2025 12:05:09");
    expect(() => fechaHoraFirma(new Date("nope"))).toThrow(RangeError);
  });
});
