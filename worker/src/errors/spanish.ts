// The Spanish half of every problem document: each code's title and the explanation a problem
// carries as `detailEs` when its thrower wrote no Spanish of its own. Exhaustive over the codes,
// so a new code cannot answer in English only (test/problem-spanish.test.ts reads every code).
import type { ProblemCode, RequestPart } from "./problem.ts";

export const PROBLEM_TITLES_ES: Record<ProblemCode, string> = {
  bad_request: "Solicitud incorrecta",
  malformed_json: "El cuerpo no es JSON válido",
  validation_failed: "El documento tiene problemas",
  unauthorized: "Se requiere autenticación",
  forbidden: "No permitido",
  not_found: "No encontrado",
  method_not_allowed: "Método no permitido",
  conflict: "Conflicto",
  in_progress: "Todavía en proceso",
  precondition_failed: "Cambió desde que se leyó",
  payload_too_large: "Cuerpo de la solicitud demasiado grande",
  unsupported_media_type: "Tipo de contenido no admitido",
  unprocessable: "No se puede procesar",
  precondition_required: "Se requiere If-Match",
  quota_exceeded: "Cuota mensual agotada",
  too_many_requests: "Demasiadas solicitudes",
  dgii_unavailable: "DGII no disponible",
  internal_error: "Error interno",
  invalid_rnc: "No es un RNC ni una cédula",
  taxpayer_not_found: "Contribuyente no registrado en la DGII",
  csrf_failed: "Token CSRF ausente o incorrecto",
  expired: "Vencido",
  console_session_required: "Solo una sesión de la consola puede hacerlo",
};

/** What each code means for the caller, in Spanish: the `detailEs` of a problem thrown without one. */
export const PROBLEM_DETAILS_ES: Record<ProblemCode, string> = {
  bad_request: "La solicitud no se puede usar tal como llegó; el detalle en inglés indica qué falta o sobra.",
  malformed_json: "El cuerpo de la solicitud no es JSON válido.",
  validation_failed: "La solicitud tiene problemas; cada uno aparece en errors[] con su ubicación y su texto.",
  unauthorized:
    "Falta el token o la sesión, o ya no es válido (mal formado, vencido o revocado); inicie sesión de nuevo.",
  forbidden: "Quien llama no puede hacer esto para este emisor, o el emisor no está activo.",
  not_found: "No existe lo que la solicitud nombra, o no pertenece a esta empresa.",
  method_not_allowed: "Este método no está permitido en esta dirección.",
  conflict: "La solicitud choca con lo ya guardado (un número usado, un código tomado, una clave repetida).",
  in_progress: "Otra solicitud con la misma Idempotency-Key aún se procesa; vuelva a intentar en unos segundos.",
  precondition_failed: "El registro cambió desde que se leyó; léalo de nuevo y vuelva a aplicar el cambio.",
  payload_too_large: "El cuerpo de la solicitud es demasiado grande.",
  unsupported_media_type: "El cuerpo llegó con un tipo de contenido que esta operación no acepta.",
  unprocessable: "La solicitud está bien formada, pero lo guardado no la permite (por ejemplo, no hay rango de e-NCF).",
  precondition_required: "Envíe If-Match con la ETag leída, para no sobrescribir un cambio hecho mientras tanto.",
  quota_exceeded: "Se alcanzó el límite mensual de comprobantes del emisor.",
  too_many_requests: "Demasiadas solicitudes; espere lo que indica Retry-After y vuelva a intentar.",
  dgii_unavailable: "La DGII no respondió a tiempo; vuelva a intentar más tarde.",
  internal_error: "Ocurrió un error inesperado. Cite el requestId al reportarlo.",
  invalid_rnc: "No es un RNC (9 dígitos) ni una cédula (11 dígitos).",
  taxpayer_not_found: "El RNC no está en el registro de contribuyentes de la DGII.",
  csrf_failed: "Una escritura hecha con la sesión de la consola debe enviar el csrfToken de la sesión.",
  expired: "El enlace o la invitación venció; pida uno nuevo.",
  console_session_required: "Solo el dueño con sesión abierta en la consola puede hacer esto, nunca una clave de API.",
};

/** The Spanish title of a validation problem, by the part of the request it is in. */
export const VALIDATION_TITLES_ES: Record<RequestPart, string> = {
  query: "La consulta tiene problemas",
  path: "La ruta de la URL tiene problemas",
  header: "Un encabezado tiene problemas",
  document: "El documento tiene problemas",
};
