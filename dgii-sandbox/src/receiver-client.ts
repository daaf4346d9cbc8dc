// How DGII calls a taxpayer's receiver (descripcion-tecnica, "Servicios que debe exponer el
// receptor"): the optional authentication (seed, signed with DGII's certificate, exchanged for a
// token) and a multipart POST of the document in the field `xml`. Shared by the emisor-receptor
// simulator and the certification's communication tests.
import { signXml } from "@ecf/shared";
import type { SandboxContext } from "./context.ts";

/** Posts `xml` as the multipart file field `xml`; throws when the receiver cannot be reached. */
export function postXmlFile(url: string, xml: string, fileName: string, accept: string, token?: string) {
  const form = new FormData();
  form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
  const headers: Record<string, string> = { accept };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(url, { method: "POST", body: form, headers });
}

/**
 * GET {service}/api/semilla, sign it with the sandbox's certificate, POST it to
 * {service}/api/validacioncertificado; the token comes back as JSON or XML.
 */
export async function authenticateAt(
  ctx: SandboxContext,
  service: string,
): Promise<{ status: number; token?: string; error?: string }> {
  const base = service.replace(/\/+$/, "");
  try {
    const seedResponse = await fetch(`${base}/api/semilla`);
    if (!seedResponse.ok) return { status: seedResponse.status, error: "semilla refused" };
    const signer = await ctx.signer();
    const signed = await signXml(await seedResponse.text(), signer.key, signer.certificateDer);
    const response = await postXmlFile(`${base}/api/validacioncertificado`, signed, "semilla.xml", "application/json");
    const text = await response.text();
    const token = /"token"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? /<token>([^<]+)<\/token>/.exec(text)?.[1];
    return token
      ? { status: response.status, token }
      : { status: response.status, error: `no token in the answer: ${text.slice(0, 200)}` };
  } catch (error) {
    return { status: 0, error: `receiver unreachable: ${String(error)}` };
  }
}
