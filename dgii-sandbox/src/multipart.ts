// DGII receives every document as a multipart/form-data field named `xml` (a file).
import type { Context } from "hono";

export type XmlPart = { ok: true; xml: string; fileName: string } | { ok: false; message: string };

export async function readXmlPart(c: Context): Promise<XmlPart> {
  const contentType = c.req.header("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    return { ok: false, message: "Tipo de archivo no válido, favor proveer un XML (multipart/form-data, campo xml)" };
  }
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return { ok: false, message: "El cuerpo multipart no es válido" };
  }
  const part = form.get("xml");
  if (part === null) return { ok: false, message: "El campo xml es requerido" };
  if (typeof part === "string") return { ok: true, xml: part, fileName: "" };
  return { ok: true, xml: await part.text(), fileName: part.name };
}
