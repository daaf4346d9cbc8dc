// The validator's page, in Spanish: a form that posts the file to POST /validate?formato=html, and
// the answer drawn as a list of problems in words, each with the DGII rule it rests on.
import type { Verdict } from "./checks.ts";

export const VALIDATOR_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (value: string) => value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:48rem;margin:0 auto;padding:1rem;color:#222}
li{margin:.4rem 0}.regla{color:#555;font-size:.9em}.ok{color:#075e07;font-weight:bold}.mal{color:#9b1111;font-weight:bold}`;

function result(verdict: Verdict): string {
  const head = verdict.valid
    ? `<p class="ok" data-valid="true">El documento es válido${verdict.kind ? ` (${esc(verdict.kind)})` : ""}.</p>`
    : `<p class="mal" data-valid="false">La DGII rechazaría este documento: ${verdict.problems.filter((p) => p.severity === "error").length} problema(s).</p>`;
  const items = verdict.problems
    .map(
      (p) =>
        `<li data-code="${esc(p.code)}">${p.severity === "warning" ? "Advertencia: " : ""}${esc(p.messageEs)} <span class="regla">(${esc(p.rule)})</span></li>`,
    )
    .join("");
  const timbre = verdict.timbre
    ? `<p>Código de seguridad: <strong>${esc(verdict.timbre.codigoSeguridad)}</strong></p>`
    : "";
  return `<section aria-label="Resultado">${head}${items ? `<ul>${items}</ul>` : ""}${timbre}</section>`;
}

/** The page, with the last answer when there is one. */
export function validatorPage(verdict?: Verdict): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Validador de comprobantes electrónicos</title><style>${STYLE}</style></head><body>
<h1>Validador de comprobantes electrónicos</h1>
<p>Suba un e-CF, un resumen de factura de consumo (RFCE), un acuse de recibo (ARECF), una aprobación comercial (ACECF) o una anulación (ANECF) firmados, y vea todo lo que la DGII rechazaría. No se guarda nada y no necesita cuenta.</p>
<form method="post" action="/validate?formato=html" enctype="multipart/form-data">
<label>Archivo XML <input type="file" name="xml" accept=".xml,application/xml,text/xml" required></label>
<button type="submit">Validar</button></form>
${verdict ? result(verdict) : ""}</body></html>`;
}
