import { certificateDerOf, signingKeyFor } from "../certificates/vault.ts";
import { refuse } from "../errors/refusal.ts";
import type { Company } from "../db/tables.ts";
import { DgiiClient } from "./client.ts";

export interface CompanySigner {
  key: CryptoKey;
  certificateDer: Uint8Array;
}

/** The issuer's signing key and certificate, or a clear 422 when none is registered. */
export async function signerFor(env: Env, company: Company): Promise<CompanySigner> {
  if (!company.certificateKeyEncrypted || !company.certificateDer) {
    throw refuse("not_allowed", {
      detail: `Issuer ${company.rnc} has no signing certificate; upload one with PUT /company/certificate.`,
      errors: [{ path: "", code: "certificate_missing", message: "No signing certificate." }],
    });
  }
  return {
    key: await signingKeyFor(company.certificateKeyEncrypted, env.MASTER_KEY, company.id),
    certificateDer: certificateDerOf(company.certificateDer, company.id),
  };
}

/**
 * DGII's status service's answer for the issuer's environment, and until when it is reused (epoch
 * ms; remembered a few seconds per isolate). An issuer without a usable signing key counts as up:
 * the send is then attempted and says what is missing.
 */
export async function dgiiStatusFor(
  env: Env,
  company: Company,
  onCall?: (what: string, ms: number) => void,
): Promise<{ up: boolean; until: number }> {
  const signer = await signerFor(env, company).catch(() => undefined);
  return signer ? dgiiClientFor(env, company, signer, onCall).status() : { up: true, until: 0 };
}

/** False only when DGII's status service says the issuer's environment is down (see dgiiStatusFor). */
export async function dgiiAvailableFor(
  env: Env,
  company: Company,
  onCall?: (what: string, ms: number) => void,
): Promise<boolean> {
  return (await dgiiStatusFor(env, company, onCall)).up;
}

/** A positive number from a [vars] entry, or the fallback. */
function numberVar(env: Env, name: string, fallback: number): number {
  const raw = (env as unknown as Record<string, string | undefined>)[name];
  const value = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Timeout of every DGII call: DGII_TIMEOUT_MS, 10 s by default. */
export function dgiiTimeoutMs(env: Env): number {
  return numberVar(env, "DGII_TIMEOUT_MS", 10_000);
}

/** How long DGII's answer to "are you available?" is reused: DGII_STATUS_TTL_MS, 5 s by default. */
export function dgiiStatusTtlMs(env: Env): number {
  return numberVar(env, "DGII_STATUS_TTL_MS", 5_000);
}

/**
 * How long a directory answer (consultadirectorio) is reused: a listing DGII_DIRECTORY_TTL_MS (10 minutes by
 * default), "not listed" DGII_DIRECTORY_NEGATIVE_TTL_MS (30 s by default).
 */
export function dgiiDirectoryTtls(env: Env): { listedMs: number; notListedMs: number } {
  return {
    listedMs: numberVar(env, "DGII_DIRECTORY_TTL_MS", 600_000),
    notListedMs: numberVar(env, "DGII_DIRECTORY_NEGATIVE_TTL_MS", 30_000),
  };
}

export function dgiiClientFor(
  env: Env,
  company: Company,
  signer: CompanySigner,
  onCall?: (what: string, ms: number) => void,
): DgiiClient {
  return new DgiiClient(
    env,
    {
      environment: company.dgiiEnvironment,
      rnc: company.rnc,
      key: signer.key,
      certificateDer: signer.certificateDer,
      certificateSerial: company.certificateSerial ?? "",
    },
    // Tests shorten these through [vars]; production keeps the defaults.
    { timeoutMs: dgiiTimeoutMs(env), statusTtlMs: dgiiStatusTtlMs(env), onCall },
  );
}
