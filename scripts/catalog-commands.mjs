// The shared catalogue's commands of `npm run admin`: a products file in (the server refuses the
// whole file on any bad line; the report is printed a line per problem) and out, a cashier, and a
// till's settings. Each is one request to the administration API.
import { readFileSync, writeFileSync } from "node:fs";

/** Sends a whole CSV file; on a refusal, throws an error whose message lists every bad line. */
export async function importProducts(api, companyId, file) {
  const csv = readFileSync(file);
  try {
    return await api.post(
      `/admin/companies/${companyId}/products/import`,
      new Blob([csv], { type: "text/csv; charset=utf-8" }),
    );
  } catch (error) {
    if (error.status !== 422 || !Array.isArray(error.body?.errors)) throw error;
    throw Object.assign(new Error(importReport(file, error.body)), { status: 422 });
  }
}

/** The server's 422 as a person reads it: the file, then one line per problem in line order. */
export function importReport(file, problem) {
  const lines = [`${file}: nothing was imported. ${problem.detail}`];
  for (const e of problem.errors)
    lines.push(`  line ${e.line}${e.column ? `, ${e.column}` : ""}: ${e.detail ?? e.message}`);
  if (problem.problemCount > problem.errors.length)
    lines.push(`  … and ${problem.problemCount - problem.errors.length} more problem(s)`);
  return lines.join("\n");
}

/** Writes the catalogue to `file` (and answers a summary), or to standard output without one. */
export async function exportProducts(api, companyId, file) {
  const csv = await api.get(`/admin/companies/${companyId}/products/export`);
  if (!file) {
    process.stdout.write(csv);
    return undefined;
  }
  writeFileSync(file, csv);
  // Names and codes are single lines, so every CRLF ends a record; the first is the header.
  return { file, products: csv.split("\r\n").length - 2 };
}

export function updateDevice(api, companyId, deviceId, canEditPrices) {
  if (canEditPrices !== "true" && canEditPrices !== "false") throw new Error("--can-edit-prices must be true or false");
  return api.patch(`/admin/companies/${companyId}/devices/${deviceId}`, { canEditPrices: canEditPrices === "true" });
}
