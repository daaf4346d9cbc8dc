// Everything the sandbox remembers. Every change is a StateEvent applied here; with a state
// directory the events are also journaled (journal.ts), so a restarted sandbox forgets nothing,
// as DGII never does.
import { Journal } from "./journal.ts";
import type { Postulacion } from "./certification/postulacion.ts";
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
  /** SHA-256 of the certificate that signed the seed (signers.ts). */
  fingerprint?: string;
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
  /** What the sandbox answered; for an accepted e-CF (trackId set) it is read from its reception when listed. */
  outcome: unknown;
}

/** A buyer switched per test: a forced ARECF Estado (1 with its CodigoMotivoNoRecibido), or authentication required. */
export interface BuyerBehaviour {
  estado?: "0" | "1";
  motivo?: "1" | "2" | "3" | "4";
  requireAuth?: boolean;
}

/** One change to the sandbox's memory: what the journal holds, one per line. */
export type StateEvent =
  | { t: "seed"; valor: string; seed: SeedRecord }
  | { t: "seed-used"; valor: string }
  | { t: "token"; token: string; record: TokenRecord }
  /** An e-CF given a track id; its XML is kept until it is judged, so a restart can judge it. */
  | { t: "reception"; reception: EcfReception; xml: string }
  | { t: "outcome"; trackId: string; outcome: Outcome }
  | { t: "rfce"; rfce: RfceReception }
  | { t: "approval"; approval: Approval }
  | { t: "voided"; range: VoidedRange }
  | { t: "received"; entry: ReceivedEntry }
  | { t: "receptor-received"; key: string }
  | { t: "directory"; directory: DirectoryEntry[] }
  | { t: "buyer"; buyer: BuyerBehaviour }
  /** An RNC's authorized signers (SHA-256 of each certificate's DER) from now on. */
  | { t: "signers"; rnc: string; fingerprints: string[] }
  /** A taxpayer's certification (certecf portal) as it now stands, whole. */
  | { t: "postulacion"; postulacion: Postulacion }
  | { t: "clear-received" };

export class SandboxState {
  readonly seeds = new Map<string, SeedRecord>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly receptions = new Map<string, EcfReception>();
  readonly rfce: RfceReception[] = [];
  readonly approvals: Approval[] = [];
  readonly voided: VoidedRange[] = [];
  readonly received: ReceivedEntry[] = [];
  /** Kept in memory only: a bounded debugging aid, not something DGII would remember. */
  readonly requests: RequestLogEntry[] = [];
  /** RNCEmisor|e-NCF the emisor-receptor simulator acknowledged as received (for duplicates). */
  readonly receptorReceived = new Set<string>();
  /** Consulta Directorio's content, set by tests (PUT /__sandbox/directory). */
  directory: DirectoryEntry[] = [];
  /** How the emisor-receptor simulator plays the buyer (PUT /__sandbox/buyer); empty: as it judges. */
  buyer: BuyerBehaviour = {};
  /** Each RNC's authorized signers (signers.ts), by certificate fingerprint. */
  readonly signers = new Map<string, Set<string>>();
  /** Each RNC's certification in certecf (certification/postulacion.ts). */
  readonly postulaciones = new Map<string, Postulacion>();
  /** Serialises evaluation per RNC + e-NCF, so of two concurrent copies only one is accepted. */
  readonly evaluationChains = new Map<string, Promise<void>>();
  /** The XML of each e-CF not judged yet, by track id. */
  readonly unjudged = new Map<string, string>();

  private constructor(private readonly journal: Journal | undefined) {}

  /** In memory only, or, given a directory, replayed from its journal and journaled from now on. */
  static open(stateDir?: string): SandboxState {
    if (!stateDir) return new SandboxState(undefined);
    const journal = new Journal(stateDir);
    const state = new SandboxState(journal);
    for (const events of journal.replay()) for (const event of events) state.apply(event);
    return state;
  }

  /** Applies changes and, when journaled, writes them down (as one line: all or none) before the caller answers. */
  record(...events: StateEvent[]): void {
    this.journal?.append(events);
    for (const event of events) this.apply(event);
  }

  private apply(event: StateEvent): void {
    switch (event.t) {
      case "seed":
        this.seeds.set(event.valor, event.seed);
        break;
      case "seed-used": {
        const seed = this.seeds.get(event.valor);
        if (seed) seed.used = true;
        break;
      }
      case "token":
        this.tokens.set(event.token, event.record);
        break;
      case "reception":
        this.receptions.set(event.reception.trackId, event.reception);
        this.unjudged.set(event.reception.trackId, event.xml);
        break;
      case "outcome": {
        const reception = this.receptions.get(event.trackId);
        if (reception) reception.outcome = event.outcome;
        this.unjudged.delete(event.trackId);
        break;
      }
      case "rfce":
        this.rfce.push(event.rfce);
        break;
      case "approval":
        this.approvals.push(event.approval);
        break;
      case "voided":
        this.voided.push(event.range);
        break;
      case "received":
        this.received.push(event.entry);
        break;
      case "receptor-received":
        this.receptorReceived.add(event.key);
        break;
      case "directory":
        this.directory = event.directory;
        break;
      case "buyer":
        this.buyer = event.buyer;
        break;
      case "signers":
        this.signers.set(event.rnc, new Set(event.fingerprints));
        break;
      case "postulacion":
        this.postulaciones.set(event.postulacion.rnc, event.postulacion);
        break;
      case "clear-received":
        // Forgets every received document and the request log; seeds and tokens stay valid so clients keep their session.
        this.receptions.clear();
        this.unjudged.clear();
        this.rfce.length = 0;
        this.approvals.length = 0;
        this.voided.length = 0;
        this.received.length = 0;
        this.requests.length = 0;
        this.receptorReceived.clear();
        this.evaluationChains.clear();
        break;
    }
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
      (range) =>
        range.env === env &&
        range.rnc === rnc &&
        range.tipo === parts.tipo &&
        parts.sequence >= range.from &&
        parts.sequence <= range.to,
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
