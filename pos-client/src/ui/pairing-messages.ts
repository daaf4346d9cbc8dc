// Why a pairing failed, said to the person at the till in Spanish, without HTTP jargon: the
// server's problem code (RFC 9457) picks the sentence; its English detail never reaches the screen.
import { ProblemError } from "@ecf/client";

export function pairingFailure(error: unknown, online: boolean): string {
  if (!online) return "Se necesita conexión a internet para vincular.";
  if (error instanceof ProblemError) {
    switch (error.code) {
      case "unauthorized":
      case "not_found":
        return "El código de vinculación no es válido o ya se usó. Pida al administrador un código nuevo.";
      case "validation_failed":
        return "Escriba el código de vinculación tal como lo generó el administrador.";
      case "too_many_requests":
        return "Demasiados intentos. Espere un momento y vuelva a intentarlo.";
      default:
        return "El servidor no pudo vincular este punto de venta. Vuelva a intentarlo en unos minutos.";
    }
  }
  return "No se pudo contactar con el servidor. Revise la conexión y vuelva a intentarlo.";
}
