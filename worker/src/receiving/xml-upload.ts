// DGII's emisor-receptor services take every document as a multipart/form-data file field named
// `xml`. Everything that can be wrong with the envelope is a 400 or 413 problem, before any XML
// parsing happens.
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";

/** An e-CF with a thousand lines is far below this; anything larger is not a document we take. */
export const MAX_XML_BYTES = 1024 * 1024;

export interface XmlUpload {
  xml: string;
  fileName: string;
}

const bad = (detail: string, path: string, code: string) =>
  new ApiProblem("bad_request", { detail, errors: [{ path, code, message: detail }] });

const tooLarge = () =>
  new ApiProblem("payload_too_large", {
    detail: `The XML exceeds ${MAX_XML_BYTES} bytes.`,
    errors: [{ path: "/xml", code: "too_large", message: `The XML exceeds ${MAX_XML_BYTES} bytes.` }],
  });

/** Reads the `xml` part of a multipart request as UTF-8 text. */
export async function readXmlUpload(c: Context<AppEnv>): Promise<XmlUpload> {
  const contentType = c.req.header("Content-Type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw bad(
      "Send the document as multipart/form-data with a file field named 'xml'.",
      "/headers/Content-Type",
      "unsupported_media_type",
    );
  }
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (declared > MAX_XML_BYTES + 64 * 1024) throw tooLarge();

  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw bad("The multipart body cannot be read.", "", "malformed_multipart");
  }
  const part = form.get("xml");
  if (part === null) throw bad("The field 'xml' is required.", "/xml", "required");
  const bytes = typeof part === "string" ? new TextEncoder().encode(part) : new Uint8Array(await part.arrayBuffer());
  if (bytes.byteLength > MAX_XML_BYTES) throw tooLarge();
  if (bytes.byteLength === 0) throw bad("The field 'xml' is empty.", "/xml", "empty");
  let xml: string;
  try {
    xml = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bad("The XML is not UTF-8.", "/xml", "not_utf8");
  }
  return { xml, fileName: typeof part === "string" ? "" : part.name };
}
