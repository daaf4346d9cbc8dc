import { ApiProblem } from "../http/problem.ts";
import { drIsoDate } from "../time.ts";

/** Largest sequence number an e-NCF can carry: E + type + 10 digits. */
export const MAX_SEQUENCE_NUMBER = 9_999_999_999;

export function formatEncf(tipoeCF: string, number: number): string {
  return `E${tipoeCF}${String(number).padStart(10, "0")}`;
}

export interface AllocatedEncf {
  encf: string;
  number: number;
  /** FechaVencimientoSecuencia, ISO yyyy-MM-dd. */
  expiresOn: string;
}

/** The 422 for a range past its FechaVencimientoSecuencia. */
export function sequenceExpired(tipoeCF: string, expiresOn: string): ApiProblem {
  return new ApiProblem("unprocessable", {
    detail: `The e-NCF range for type ${tipoeCF} expired on ${expiresOn}; request a new range from DGII.`,
    errors: [{ path: "/Encabezado/IdDoc/TipoeCF", code: "sequence_expired", message: `Range expired on ${expiresOn}.` }],
  });
}

/**
 * Takes the next e-NCF of an authorised range with one conditional UPDATE … RETURNING, so two
 * concurrent requests can never receive the same number. An exhausted, expired or missing range
 * is a 422 problem raised before anything is signed.
 */
export async function allocateEncf(d1: D1Database, companyId: string, tipoeCF: string, now: Date): Promise<AllocatedEncf> {
  const today = drIsoDate(now);
  const row = await d1
    .prepare(
      `UPDATE sequences SET next_number = next_number + 1
       WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number <= range_to AND expires_on >= ?3
       RETURNING next_number - 1 AS number, expires_on AS expiresOn`,
    )
    .bind(companyId, tipoeCF, today)
    .first<{ number: number; expiresOn: string }>();
  if (row) return { encf: formatEncf(tipoeCF, row.number), number: row.number, expiresOn: row.expiresOn };

  const sequence = await d1
    .prepare(`SELECT range_to AS rangeTo, next_number AS nextNumber, expires_on AS expiresOn FROM sequences WHERE company_id = ?1 AND tipo_ecf = ?2`)
    .bind(companyId, tipoeCF)
    .first<{ rangeTo: number; nextNumber: number; expiresOn: string }>();
  const path = "/Encabezado/IdDoc/TipoeCF";
  if (!sequence) {
    throw new ApiProblem("unprocessable", {
      detail: `No authorised e-NCF range is registered for type ${tipoeCF}; register one with PUT /company/sequences/${tipoeCF}.`,
      errors: [{ path, code: "sequence_missing", message: `No e-NCF range for type ${tipoeCF}.` }],
    });
  }
  if (sequence.expiresOn < today) throw sequenceExpired(tipoeCF, sequence.expiresOn);
  throw new ApiProblem("unprocessable", {
    detail: `The e-NCF range for type ${tipoeCF} is exhausted (last number ${formatEncf(tipoeCF, sequence.rangeTo)}); request a new range from DGII.`,
    errors: [{ path, code: "sequence_exhausted", message: "Range exhausted." }],
  });
}
