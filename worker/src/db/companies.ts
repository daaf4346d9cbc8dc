import { eq } from "drizzle-orm";
import { database } from "./client.ts";
import { companies, type Company } from "./schema.ts";

/** The issuer with this id, as D1 has it now. */
export async function companyById(env: Env, id: string): Promise<Company | undefined> {
  return database(env.DB).query.companies.findFirst({ where: eq(companies.id, id) });
}
