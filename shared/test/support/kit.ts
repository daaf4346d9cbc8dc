// Where DGII's reference kit lives (XSDs, documents, catalogs, samples, test sets). It is outside
// the repository and read in place: DGII_KIT if set, else ../shared/dgii beside the checkout,
// else the workplace's /work/shared/dgii. Missing, it is an error, never a skipped test.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const candidates = [process.env.DGII_KIT, resolve(repoRoot, "../shared/dgii"), "/work/shared/dgii"].filter((c): c is string => !!c);
const found = candidates.find((dir) => existsSync(join(dir, "xsd")));
if (!found) throw new Error(`DGII reference kit not found (looked in ${candidates.join(", ")}); set DGII_KIT to its dgii/ folder`);

export const DGII_KIT: string = found;
