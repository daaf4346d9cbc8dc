// Everything the sandbox remembers, in memory for the life of the process.
import type { AcecfSummary, EcfSummary, RfceSummary } from "./documents.ts";
import type { Environment } from "./environments.ts";
import type { Outcome } from "./outcome.ts";
import type { RequestLogEntry } from "./request-log.ts";
import type { DirectoryEntry } from "./routes/consultadirectorio.ts";

/** Who a seed or token is for: DGII's services, or the emisor-receptor simulator's own /fe/autenticacion. */
export type Audience = "dgii" | "emisorreceptor";

export interface SeedRecord {
  env: Environment;
  audience: Audience;
  issuedAt: number;
  used: boolean;
}

export interface TokenRecord {
  env: Environment;
  audience: Audience;
  /** RNC or cédula from the certificate that signed the seed. */
  holderId: string | null;
  subject: string;
  expedido: Date;
  expira: Date;
}

export interface EcfReception {
  trackId: string;
  env: Environment;
  fileName: string;
  summary: EcfSummary;
  receivedAt: Date;
  /** Epoch ms before which the reception reads as En Proceso, whatever the evaluation says. */
  readyAt: number;
  /** Set when evaluation finishes. */
  outcome?: Outcome;
}

export interface RfceReception {
  env: Environment;
  fileName: string;
  summary: RfceSummary;
  receivedAt: Date;
  outcome: Outcome;
}

export interface Approval {
  env: Environment;
  summary: AcecfSummary;
  receivedAt: Date;
}

export interface VoidedRange {
  env: Environment;
  rnc: string;
  tipo: string;
  from: number;
  to: number;
}

export type ReceivedKind = "semilla" | "ecf" | "rfce" | "acecf" | "anecf" | "receptor-ecf" | "receptor-acecf";

/** One line of `GET /__sandbox/received`. */
export interface ReceivedEntry {
  kind: ReceivedKind;
  env: Environment;
  rnc: string | null;
  encf: string | null;
  trackId: string | null;
  fileName: string | null;
  receivedAt: Date;
  /** Computed when listed, so an e-CF's entry moves from En Proceso to its final state. */
  outcome: () => unknown;
}

/** A buyer switched per test: a forced ARECF Estado (1 with its CodigoMotivoNoRecibido), or authentication required. */
export interface BuyerBehaviour {
  estado?: "0" | "1";
  motivo?: "1" | "2" | "3" | "4";
  requireAuth?: boolean;
}

export class SandboxState {
  readonly seeds = new Map<string, SeedRecord>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly receptions = new Map<string, EcfReception>();
  readonly rfce: RfceReception[] = [];
  readonly approvals: Approval[] = [];
  readonly voided: VoidedRange[] = [];
  readonly received: ReceivedEntry[] = [];
  readonly requests: RequestLogEntry[] = [];
  /** RNCEmisor|e-NCF the emisor-receptor simulator acknowledged as received (for duplicates). */
  readonly receptorReceived = new Set<string>();
  /** Consulta Directorio's content, set by tests (PUT /__sandbox/directory). */
  directory: DirectoryEntry[] = [];
  /** How the emisor-receptor simulator plays the buyer (PUT /__sandbox/buyer); empty: as it judges. */
  buyer: BuyerBehaviour = {};
  /** Serialises evaluation per RNC + e-NCF, so of two concurrent copies only one is accepted. */
  readonly evaluationChains = new Map<string, Promise<void>>();

  /** Forgets every received document and the request log; seeds and tokens stay valid so clients keep their session. */
  clearReceived(): void {
    this.receptions.clear();
    this.rfce.length = 0;
    this.approvals.length = 0;
    this.voided.length = 0;
    this.received.length = 0;
    this.requests.length = 0;
    this.receptorReceived.clear();
    this.evaluationChains.clear();
  }

  receptionsOf(env: Environment, rnc: string, encf: string): EcfReception[] {
    const out: EcfReception[] = [];
    for (const reception of this.receptions.values()) {
      if (reception.env === env && reception.summary.rncEmisor === rnc && sameEncf(reception.summary.encf, encf)) {
        out.push(reception);
      }
    }
    return out;
  }

  isVoided(env: Environment, rnc: string, encf: string): boolean {
    const parts = splitEncf(encf);
    if (!parts) return false;
    return this.voided.some(
      (range) => range.env === env && range.rnc === rnc && range.tipo === parts.tipo && parts.sequence >= range.from && parts.sequence <= range.to,
    );
  }
}

/** e-NCF comparison is case-insensitive, as DGII's query examples use lower-case `e31…`. */
export function sameEncf(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

export function splitEncf(encf: string): { tipo: string; sequence: number } | null {
  const match = /^E(\d{2})(\d{10})$/i.exec(encf);
  return match ? { tipo: match[1]!, sequence: Number(match[2]) } : null;
}
