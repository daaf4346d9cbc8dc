// Where DGII's public reference kit lives (XSDs, documents, catalogs, samples, certification test
// sets): vendor/dgii in this repository, with a SOURCES file naming where each part came from.
// The tests and the generators read it from there, so a clone anywhere has what they need.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export const DGII_KIT: string = join(repoRoot, "vendor", "dgii");
if (!existsSync(join(DGII_KIT, "xsd")))
  throw new Error(`DGII reference kit not found in ${DGII_KIT} (vendor/dgii is part of the repository)`);
