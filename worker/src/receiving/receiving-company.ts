// One platform receives for many companies: the receiver is named by a /{rnc} prefix in the URL
// or, on the bare path, by the document itself.
import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { companies } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";

export async function findReceivingCompany(d1: D1Database, rnc: string): Promise<Company | undefined> {
  const company = await database(d1).query.companies.findFirst({ where: eq(companies.rnc, rnc) });
  return company?.isActive ? company : undefined;
}

export async function requireReceivingCompany(d1: D1Database, rnc: string, path: string): Promise<Company> {
  const company = await findReceivingCompany(d1, rnc);
  if (!company) {
    throw new ApiProblem("not_found", {
      detail: `No company receives e-CF for RNC ${rnc} here.`,
      errors: [{ path, code: "unknown_receiver", message: `RNC ${rnc} is not a receiver on this platform.` }],
    });
  }
  return company;
}
