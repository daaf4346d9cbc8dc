// Seed → signed seed → token, shared by DGII's autenticacion service and the emisor-receptor
// simulator's /fe/autenticacion (same protocol, separate seeds and tokens).
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { SandboxContext } from "./context.ts";
import { santoDomingoIso, universal } from "./dgii-time.ts";
import { readSemilla } from "./documents.ts";
import type { Environment } from "./environments.ts";
import { readXmlPart } from "./multipart.ts";
import type { Audience } from "./state.ts";
import { issueToken } from "./tokens.ts";
import { localName, type MalformedXmlError, parseXml } from "./xml-read.ts";

function refuse(error: string, mensaje: string) {
  return new Response(JSON.stringify({ error, mensaje }), {
    status: 400,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

/** A fresh SemillaModel, remembered so that only it can be exchanged, once. */
export function issueSeed(ctx: SandboxContext, env: Environment, audience: Audience): Response {
  const now = ctx.now();
  const valor = randomBytes(96).toString("base64");
  ctx.state.record({ t: "seed", valor, seed: { env, audience, issuedAt: now.getTime(), used: false } });
  const xml =
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">` +
    `<valor>${valor}</valor><fecha>${santoDomingoIso(now)}</fecha></SemillaModel>`;
  return new Response(xml, { status: 200, headers: { "content-type": "application/xml; charset=utf-8" } });
}

/** Checks a signed seed (multipart `xml`) and answers `{ token, expira, expedido }` or 400 `{ error, mensaje }`. */
export async function exchangeSeed(
  c: Context,
  ctx: SandboxContext,
  env: Environment,
  audience: Audience,
): Promise<Response> {
  const part = await readXmlPart(c);
  if (!part.ok) return refuse("archivo_invalido", part.message);
  let root;
  try {
    root = parseXml(part.xml);
  } catch (error) {
    return refuse("xml_invalido", `El XML no es válido: ${(error as MalformedXmlError).message}`);
  }
  if (localName(root) !== "SemillaModel") return refuse("xml_invalido", "Se esperaba un SemillaModel firmado");

  const schema = await ctx.checks.validateSchema(part.xml, "Semilla");
  if (!schema.ok)
    return refuse("estructura_invalida", `La estructura de la semilla no es válida: ${schema.errors.join("; ")}`);
  const signature = await ctx.checks.verifySignature(part.xml);
  if (!signature.ok) return refuse("firma_invalida", `La firma de la semilla no es válida: ${signature.message}`);

  const { valor } = readSemilla(root);
  const seed = valor ? ctx.state.seeds.get(valor) : undefined;
  if (!valor || !seed || seed.env !== env || seed.audience !== audience)
    return refuse("semilla_desconocida", "La semilla no fue emitida por este servicio");
  if (seed.used) return refuse("semilla_usada", "La semilla ya fue utilizada");
  if (ctx.now().getTime() - seed.issuedAt > ctx.config.seedTtlMs)
    return refuse("semilla_vencida", "La semilla ha expirado");
  ctx.state.record({ t: "seed-used", valor });

  const { token, record } = issueToken(
    ctx,
    env,
    audience,
    signature.certificate.holderId,
    signature.certificate.subject,
    signature.certificate.fingerprint,
  );
  ctx.state.record({
    t: "received",
    entry: {
      kind: "semilla",
      env,
      rnc: record.holderId,
      encf: null,
      trackId: null,
      fileName: part.fileName || null,
      receivedAt: record.expedido,
      outcome: { audience, token: "emitido", expira: universal(record.expira) },
    },
  });
  return Response.json({ token, expira: universal(record.expira), expedido: universal(record.expedido) });
}
