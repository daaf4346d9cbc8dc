// Fault injection, switched per test through /__sandbox/faults. Several modes can be active at
// once (e.g. slow and flaky); `down` wins over everything else.

export type FaultMode = "down" | "slow" | "flaky" | "reject";

interface Scoped {
  /** DGII service names (path segment after the environment) the fault applies to; all if absent. */
  services?: string[];
}

export type Fault =
  | ({ mode: "down"; reset: boolean; status: number } & Scoped)
  | ({ mode: "slow"; delayMs: number } & Scoped)
  | ({ mode: "flaky"; rate?: number; seed: number; every?: number; status: number } & Scoped)
  | { mode: "reject"; count: number; code: number; message: string; secuenciaUtilizada: boolean };

export type FaultAction =
  | { kind: "pass"; delayMs: number }
  | { kind: "fail"; delayMs: number; status: number; reset: boolean; cause: "down" | "flaky" };

export interface ForcedRejection {
  code: number;
  message: string;
  secuenciaUtilizada: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const isInt = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

/** Validates a POST /__sandbox/faults body; returns the fault or a message saying what is wrong. */
export function parseFault(body: unknown): Fault | string {
  if (!isObject(body)) return "body must be a JSON object";
  let services: string[] | undefined;
  if (body.services !== undefined) {
    if (!Array.isArray(body.services) || !body.services.every((s) => typeof s === "string"))
      return "services must be an array of strings";
    services = body.services.map((s: string) => s.toLowerCase());
  }
  const scope = services ? { services } : {};
  switch (body.mode) {
    case "down": {
      const status = body.status ?? 503;
      if (!isInt(status, 500, 599)) return "status must be a 5xx integer";
      if (body.reset !== undefined && typeof body.reset !== "boolean") return "reset must be a boolean";
      return { mode: "down", reset: body.reset === true, status, ...scope };
    }
    case "slow": {
      if (!isInt(body.delayMs, 0, 600_000)) return "delayMs must be an integer between 0 and 600000";
      return { mode: "slow", delayMs: body.delayMs, ...scope };
    }
    case "flaky": {
      const status = body.status ?? 503;
      if (!isInt(status, 500, 599)) return "status must be a 5xx integer";
      const hasRate = body.rate !== undefined;
      const hasEvery = body.every !== undefined;
      if (hasRate === hasEvery) return "flaky needs exactly one of rate (0..1) or every (N >= 1)";
      if (hasRate && (typeof body.rate !== "number" || body.rate < 0 || body.rate > 1))
        return "rate must be a number between 0 and 1";
      if (hasEvery && !isInt(body.every, 1)) return "every must be an integer >= 1";
      const seed = body.seed ?? 1;
      if (!isInt(seed, 0, 0xffffffff)) return "seed must be an unsigned 32-bit integer";
      return {
        mode: "flaky",
        seed,
        status,
        ...(hasRate ? { rate: body.rate as number } : { every: body.every as number }),
        ...scope,
      };
    }
    case "reject": {
      if (!isInt(body.count ?? 1, 1)) return "count must be an integer >= 1";
      if (!isInt(body.code, 0)) return "code must be a non-negative integer";
      if (body.message !== undefined && typeof body.message !== "string") return "message must be a string";
      if (body.secuenciaUtilizada !== undefined && typeof body.secuenciaUtilizada !== "boolean")
        return "secuenciaUtilizada must be a boolean";
      return {
        mode: "reject",
        count: (body.count as number | undefined) ?? 1,
        code: body.code,
        message: (body.message as string | undefined) ?? `Rechazo forzado por el sandbox (código ${body.code})`,
        secuenciaUtilizada: body.secuenciaUtilizada !== false,
      };
    }
    default:
      return 'mode must be one of "down", "slow", "flaky", "reject"';
  }
}

/** mulberry32: a tiny seeded PRNG, so a flaky run is the same run every time. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const applies = (fault: Scoped, service: string) => !fault.services || fault.services.includes(service);

export class FaultSet {
  private readonly faults = new Map<FaultMode, Fault>();
  private flakyCount = 0;
  private flakyRandom: () => number = Math.random;

  set(fault: Fault): void {
    this.faults.set(fault.mode, fault);
    if (fault.mode === "flaky") {
      this.flakyCount = 0;
      this.flakyRandom = mulberry32(fault.seed);
    }
  }

  clear(): void {
    this.faults.clear();
  }

  list(): Fault[] {
    return [...this.faults.values()];
  }

  /** Whether the environment's services count as down for the status service. */
  isDown(service?: string): boolean {
    const down = this.faults.get("down");
    return !!down && down.mode === "down" && (service === undefined || applies(down, service));
  }

  /** What to do with one request to a DGII service. */
  decide(service: string): FaultAction {
    const slow = this.faults.get("slow");
    const delayMs = slow?.mode === "slow" && applies(slow, service) ? slow.delayMs : 0;
    const down = this.faults.get("down");
    if (down?.mode === "down" && applies(down, service))
      return { kind: "fail", delayMs, status: down.status, reset: down.reset, cause: "down" };
    const flaky = this.faults.get("flaky");
    if (flaky?.mode === "flaky" && applies(flaky, service)) {
      this.flakyCount += 1;
      const fails =
        flaky.every !== undefined ? this.flakyCount % flaky.every === 0 : this.flakyRandom() < (flaky.rate ?? 0);
      if (fails) return { kind: "fail", delayMs, status: flaky.status, reset: false, cause: "flaky" };
    }
    return { kind: "pass", delayMs };
  }

  /** Consumes one forced rejection, if a reject fault is armed. */
  takeRejection(): ForcedRejection | null {
    const reject = this.faults.get("reject");
    if (reject?.mode !== "reject") return null;
    if (reject.count <= 1) this.faults.delete("reject");
    else this.faults.set("reject", { ...reject, count: reject.count - 1 });
    return { code: reject.code, message: reject.message, secuenciaUtilizada: reject.secuenciaUtilizada };
  }
}
