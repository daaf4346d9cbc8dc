/**
 * How the client writes a request body: a FormData, a Blob (a CSV file…) or bytes as they are; an
 * object holding a file (a Blob, typed so by the generated types for every `format: binary` field)
 * as multipart/form-data, one part per field; anything else as JSON. openapi-fetch sets
 * Content-Type to JSON unless the result is a FormData (whose boundary fetch writes itself): a
 * call sending a Blob or bytes names its own Content-Type.
 */
export function serializeBody(body: unknown): BodyInit {
  if (body instanceof FormData || body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body))
    return body as BodyInit;
  if (isRecord(body) && Object.values(body).some((v) => v instanceof Blob)) return formData(body);
  return JSON.stringify(body);
}

/** The fields of `body` as form parts: files as files (a File keeps its name), other values as text. */
export function formData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value instanceof Blob) form.set(name, value, value instanceof File ? value.name : name);
    else form.set(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
