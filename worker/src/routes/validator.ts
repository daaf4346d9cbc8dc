// The public validator: any e-CF, RFCE, ARECF, ACECF or ANECF, every problem at once in Spanish
// and English (validator/checks.ts), with no account and no certificate; the address's requests
// are throttled like the receipt pages' (public-receipt/throttle.ts), the upload is capped
// (receiving/xml-upload.ts: 413), and nothing received is stored.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { ValidateAnswer, ValidateForm, ValidateQuery } from "../http/schemas/validator.ts";
import { countPublicRequest } from "../public-receipt/throttle.ts";
import { ApiProblem } from "../errors/problem.ts";
import { MAX_XML_BYTES, readXmlUpload } from "../receiving/xml-upload.ts";
import { validateDocument } from "../validator/checks.ts";
import { VALIDATOR_CSP, validatorPage } from "../validator/page.ts";

const html = (c: Context<AppEnv>, body: string) =>
  c.body(body, 200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": VALIDATOR_CSP,
    "Cache-Control": "no-store",
  });

/** An optional companion file (the E32 of an RFCE), capped like the document itself. */
async function companionText(part: FormDataEntryValue | null): Promise<string> {
  if (part === null) return "";
  const text = typeof part === "string" ? part : await part.text();
  if (text.length > MAX_XML_BYTES)
    throw new ApiProblem("payload_too_large", {
      detail: `The E32 exceeds ${MAX_XML_BYTES} bytes.`,
      errors: [{ path: "/ecf", code: "too_large", message: `The E32 exceeds ${MAX_XML_BYTES} bytes.` }],
    });
  return text;
}

export const validatorRoutes = newRouter();

validatorRoutes.openapi(
  createRoute({
    method: "get",
    path: "/validate",
    tags: ["Buyers"],
    summary: "The validator's page (HTML, in Spanish)",
    description: "A form to upload a signed document and read every problem DGII would reject it for.",
    security: [],
    responses: { 200: { description: "The page", content: { "text/html": { schema: z.string() } } } },
  }),
  (c) => html(c, validatorPage()),
);

// Documented here, handled below: the multipart body is read by readXmlUpload (its caps and
// problems), not by the schema validator.
validatorRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "post",
    path: "/validate",
    tags: ["Buyers"],
    summary: "Validate any e-CF, RFCE, ARECF, ACECF or ANECF: every problem at once",
    description:
      "Checks the document against DGII's official XSD, its signature and the certificate's chain to an accredited authority, for an e-CF the obligation matrices and totals tolerances and the timbre's fields, for an RFCE (with its E32 in `ecf`) that it copies the E32, and the file-name rule (RNCEmisor or RNCComprador + e-NCF); each problem in English and Spanish with the DGII rule it rests on. No account; nothing is stored. A document with problems is still a 200: the answer is the verdict.",
    security: [],
    request: {
      query: ValidateQuery,
      body: { content: { "multipart/form-data": { schema: ValidateForm } } },
    },
    responses: {
      200: {
        description: "The verdict",
        content: { "application/json": { schema: ValidateAnswer }, "text/html": { schema: z.string() } },
      },
      400: problemSchema("Not multipart, no `xml` field, empty, or not UTF-8"),
      413: problemSchema("The XML exceeds 1 MiB"),
      429: problemSchema("Too many requests from this address (Retry-After)"),
    },
  }),
);

validatorRoutes.post("/validate", async (c) => {
  const now = new Date();
  await countPublicRequest(c, now);
  const { xml, fileName } = await readXmlUpload(c);
  const form = await c.req.formData();
  const named = form.get("filename");
  const verdict = await validateDocument(
    c.env,
    xml,
    { fileName: typeof named === "string" && named ? named : fileName, e32Xml: await companionText(form.get("ecf")) },
    now,
  );
  if (c.req.query("formato") === "html") return html(c, validatorPage(verdict));
  return c.json(verdict, 200);
});
