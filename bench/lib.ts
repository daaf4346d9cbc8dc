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
