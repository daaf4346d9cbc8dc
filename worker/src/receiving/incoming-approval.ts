// Aprobación comercial (emisor-receptor): a buyer (or DGII) tells us whether it accepts one of the
// e-CF we issued. The ACECF must be well formed, signed, and match the receipt exactly.
import {
  checkStructure,
  dgiiDateOf,
  parseAcecf,
  parseXmlTree,
  treeToDocument,
  verifyXml,
  XmlParseError,
  type AcecfDocument,
} from "@ecf/shared";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt, monthOfReceipt } from "../ledger/client.ts";
import type { Company } from "../db/tables.ts";
import { sha256Hex } from "@ecf/shared/sha256";
import { companionKey } from "./archive-keys.ts";
import { NOT_EXCHANGED } from "./exchanged-types.ts";
import { requireReceivingCompany } from "./receiving-company.ts";
import { checkSignerTrust, type TrustEnv } from "./signer-trust.ts";

const refuse = (detail: string, path: string, code: string) =>
  new ApiProblem("bad_request", { detail, errors: [{ path, code, message: detail }] });

/** "1180.0" and "1180.00" are the same amount: compare as exact decimals. */
export function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s.trim());
    if (!m) return undefined;
    const fraction = (m[3] ?? "").replace(/0+$/, "");
    return `${m[1]}${m[2]!.replace(/^0+(?=\d)/, "")}.${fraction}`;
  };
  const x = norm(a);
  return x !== undefined && x === norm(b);
}

/**
 * Parses and checks an ACECF's form and signer: every failure is a 400. An ACECF whose certificate
 * no trusted authority issued is refused before anything is written, so it never blocks the
 * genuine approval that follows.
 */
export async function readAcecf(env: TrustEnv, xml: string, now: Date): Promise<AcecfDocument> {
  let tree;
  try {
    tree = parseXmlTree(xml);
  } catch (error) {
    if (error instanceof XmlParseError)
      throw refuse(`The XML cannot be accepted: ${error.message}`, "/xml", "malformed_xml");
    throw error;
  }
  if (tree.name !== "ACECF") throw refuse(`Expected an ACECF, found <${tree.name}>.`, "/xml", "not_an_acecf");
  const problems = checkStructure(treeToDocument(tree, "ACECF"), "ACECF").filter((p) => p.severity === "error");
  if (problems.length) {
    throw new ApiProblem("bad_request", {
      detail: "The ACECF does not follow its format.",
      errors: problems.map((p) => ({ path: `/xml${p.path}`, code: p.code, message: p.message })),
    });
  }
  let acecf: AcecfDocument;
  try {
    acecf = parseAcecf(xml);
  } catch (error) {
    throw refuse(`The ACECF cannot be read: ${(error as Error).message}`, "/xml", "malformed_acecf");
  }
  const verified = await verifyXml(xml);
  if (!verified.ok)
    throw refuse(
      `The ACECF's signature is not valid (${verified.reason}): ${verified.message}`,
      "/xml/Signature",
      "bad_signature",
    );
  // Valid when it reaches us: an ACECF carries no signing time (FechaHoraAprobacionComercial is the decision's).
  const trust = await checkSignerTrust(env, verified.certificate.der, now, xml);
  if (!trust.ok) {
    throw refuse(
      `The ACECF's signing certificate is not trusted (${trust.reason}): ${trust.message}`,
      "/xml/Signature",
      "certificate_not_trusted",
    );
  }
  return acecf;
}

export interface RegisteredApproval {
  receiptId: string;
  encf: string;
  approvalStatus: "accepted" | "rejected";
}

/** Registers an ACECF about one of `issuer`'s receipts (the issuer comes from the URL or RNCEmisor). */
export async function registerIncomingApproval(
  env: Env,
  prefixRnc: string | undefined,
  xml: string,
  /** Runs once the issuer is known (the receiver's token check). */
  authorize: (issuer: Company) => Promise<void> = async () => {},
): Promise<RegisteredApproval> {
  const acecf = await readAcecf(env, xml, new Date());
  const receipt = await approvedReceipt(env, prefixRnc, acecf, authorize);
  const mismatches = approvalMismatches(acecf, receipt);
  if (mismatches.length)
    throw new ApiProblem("bad_request", { detail: `The ACECF does not match ${acecf.eNCF}.`, errors: mismatches });

  const approvalStatus = acecf.Estado === "1" ? "accepted" : "rejected";
  await archiveFirstApproval(env, acecf, receipt, xml);
  await monthOfReceipt(env, receipt)
    .receipts()
    .recordApproval(receipt.id, {
      approvalStatus,
      approvalReason: acecf.DetalleMotivoRechazo ?? null,
      approvalAt: acecf.FechaHoraAprobacionComercial,
    });
  return { receiptId: receipt.id, encf: receipt.encf, approvalStatus };
}

/** One of our receipts, as the ledger holds it. */
type IssuedReceipt = NonNullable<Awaited<ReturnType<typeof findReceipt>>>;

/**
 * The receipt the ACECF is about: its issuer must be the receiver the URL names (if any) and one of
 * ours, authorised, and the receipt of a type that takes a commercial approval.
 */
async function approvedReceipt(
  env: Env,
  prefixRnc: string | undefined,
  acecf: AcecfDocument,
  authorize: (issuer: Company) => Promise<void>,
): Promise<IssuedReceipt> {
  if (prefixRnc !== undefined && acecf.RNCEmisor !== prefixRnc) {
    throw refuse(
      `RNCEmisor ${acecf.RNCEmisor} is not the receiver ${prefixRnc}.`,
      "/xml/DetalleAprobacionComercial/RNCEmisor",
      "wrong_receiver",
    );
  }
  const issuer: Company = await requireReceivingCompany(
    env.DB,
    acecf.RNCEmisor,
    "/xml/DetalleAprobacionComercial/RNCEmisor",
  );
  await authorize(issuer);
  if (NOT_EXCHANGED.has(acecf.eNCF.slice(1, 3))) {
    throw refuse(
      `Type ${acecf.eNCF.slice(1, 3)} e-CF take no commercial approval.`,
      "/xml/DetalleAprobacionComercial/eNCF",
      "not_approvable",
    );
  }
  const receipt = await findReceipt(env, issuer.id, acecf.eNCF);
  if (!receipt)
    throw refuse(
      `${acecf.eNCF} was not issued by ${issuer.rnc}.`,
      "/xml/DetalleAprobacionComercial/eNCF",
      "unknown_encf",
    );
  return receipt;
}

/** Where the ACECF disagrees with the receipt it is about (or has no valid Estado). */
function approvalMismatches(
  acecf: AcecfDocument,
  receipt: IssuedReceipt,
): { path: string; code: string; message: string }[] {
  const base = "/xml/DetalleAprobacionComercial";
  const mismatches: { path: string; code: string; message: string }[] = [];
  if (acecf.FechaEmision !== dgiiDateOf(receipt.issueDate))
    mismatches.push({
      path: `${base}/FechaEmision`,
      code: "mismatch",
      message: `FechaEmision is ${dgiiDateOf(receipt.issueDate)}`,
    });
  if (!sameAmount(acecf.MontoTotal, receipt.montoTotal))
    mismatches.push({ path: `${base}/MontoTotal`, code: "mismatch", message: `MontoTotal is ${receipt.montoTotal}` });
  if ((receipt.rncComprador ?? "") !== acecf.RNCComprador)
    mismatches.push({
      path: `${base}/RNCComprador`,
      code: "mismatch",
      message: `RNCComprador is ${receipt.rncComprador ?? "(none)"}`,
    });
  if (acecf.Estado !== "1" && acecf.Estado !== "2")
    mismatches.push({ path: `${base}/Estado`, code: "invalid", message: "Estado must be 1 or 2" });
  return mismatches;
}

/**
 * The first ACECF about a receipt is the one on record: the archive write is conditional (the
 * key must be free) and so is the ledger update, so a second, different ACECF can neither overwrite
 * the archived one nor flip the state. The same bytes again are a retry and get the same answer.
 */
async function archiveFirstApproval(
  env: Env,
  acecf: AcecfDocument,
  receipt: IssuedReceipt,
  xml: string,
): Promise<void> {
  const key = companionKey(receipt.xmlKey, ".acecf.xml");
  const sha256 = await sha256Hex(xml);
  const put = await env.ARCHIVE.put(key, xml, {
    onlyIf: { etagDoesNotMatch: "*" },
    httpMetadata: { contentType: "application/xml" },
    customMetadata: { sha256 },
  });
  if (put) return;
  const existing = await env.ARCHIVE.head(key);
  if (existing?.customMetadata?.sha256 !== sha256) {
    throw new ApiProblem("conflict", {
      detail: `${acecf.eNCF} already has a commercial approval on record (${receipt.approvalStatus ?? "received"}); a second one is not taken.`,
      errors: [
        {
          path: "/xml/DetalleAprobacionComercial/eNCF",
          code: "duplicate_approval",
          message: "Aprobación comercial ya recibida para este e-NCF",
        },
      ],
    });
  }
}
