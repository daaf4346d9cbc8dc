import { readdirSync, readFileSync } from "node:fs";
/**
 * The E31 every issuing bench sends (number `i` names its first line), as an integration would: the
 * service numbers it and derives Emisor, dates and totals.
 */
export function benchE31(i: number) {
  return {
    Encabezado: {
      IdDoc: { TipoeCF: "31", IndicadorMontoGravado: "0", TipoIngresos: "01", TipoPago: "1" },
      Comprador: { RNCComprador: "131880738", RazonSocialComprador: "Cliente de Prueba SRL" },
    },
    DetallesItems: [
      {
        IndicadorFacturacion: "1",
        NombreItem: `Servicio ${i}`,
        IndicadorBienoServicio: "2",
        CantidadItem: "1",
        PrecioUnitarioItem: "1000.00",
      },
      {
        IndicadorFacturacion: "1",
        NombreItem: "Producto A",
        IndicadorBienoServicio: "1",
        CantidadItem: "3",
        PrecioUnitarioItem: "250.50",
      },
      {
        IndicadorFacturacion: "4",
        NombreItem: "Producto exento",
        IndicadorBienoServicio: "1",
        CantidadItem: "2",
        PrecioUnitarioItem: "99.99",
      },
    ],
  };
}

/** Measures how many times per second `fn` runs, for at least `minMs` after a short warm-up. */
export async function opsPerSecond(fn: () => unknown | Promise<unknown>, minMs = 1000): Promise<number> {
  for (let i = 0; i < 5; i++) await fn();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    await fn();
    n++;
    elapsed = performance.now() - start;
  }
  return (n * 1000) / elapsed;
}

/** Prints one figure per line in the `name: value unit` form every benchmark uses. */
export function report(name: string, value: number, unit: string): void {
  const shown = value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(3);
  console.log(`${name}: ${shown} ${unit}`);
}

/** The p-th percentile (0..100) of a list of samples. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** `storage;dur=12.0, transmit;dur=340.5, rt-d1;desc=4` → { storage: 12, transmit: 340.5, "rt-d1": 4 } (durations, and counts). */
export function serverTiming(header: string | null): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const entry of (header ?? "").split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const value = params.map((p) => /^\s*(?:dur|desc)=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name && value) phases[name] = Number(value);
  }
  return phases;
}

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on). */
const USER_HZ = 100;

/**
 * CPU time (user + system, ms) used so far by this process and every process it started
 * (wrangler dev's Node process, its two workerd), by role; read from Linux's /proc, so empty
 * elsewhere. Two snapshots around a phase tell where that phase's CPU went.
 */
export function cpuByRole(): Map<string, number> {
  const byRole = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return byRole;
  }
  const processes = new Map<number, { parent: number; ms: number; command: string }>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the parenthesised command: state, ppid, … utime (14th field), stime (15th).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      processes.set(Number(pid), {
        parent: Number(fields[1]),
        ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ,
        command,
      });
    } catch {
      // ended meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; p = processes.get(p)?.parent ?? 0, hops++)
      if (p === process.pid) return true;
    return false;
  };
  for (const [pid, { ms, command }] of processes) {
    if (!ours(pid)) continue;
    const role =
      pid === process.pid
        ? "this bench (the clients, the DGII sandbox)"
        : command.includes("/workerd ")
          ? command.includes("--inspector-addr")
            ? "workerd running the worker"
            : "workerd running wrangler dev's proxy"
          : command.includes("wrangler")
            ? "wrangler dev (Node: its inspector proxy, logs)"
            : "other processes of the run";
    byRole.set(role, (byRole.get(role) ?? 0) + ms);
  }
  return byRole;
}

/** CPU ms per unit of work, by role, between two `cpuByRole()` snapshots. */
export function cpuPer(before: Map<string, number>, after: Map<string, number>, units: number): Map<string, number> {
  return new Map([...after].map(([role, ms]) => [role, (ms - (before.get(role) ?? 0)) / units]));
}
