// Processes and ports as Linux shows them (/proc), for the tests that start and kill `npm start`.
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Every live descendant of `pid` (Linux /proc), zombies excluded. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces, so read after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [procState, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (procState !== "Z") parent.set(Number(entry), Number(ppid));
    } catch {}
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, ppid] of parent) if (ppid === p) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** True when nothing listens on the port any more (we can bind it ourselves). */
export const portFree = (port: number) =>
  new Promise<boolean>((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });

/** The command name of `pid` (its /proc comm), or null when it is gone. */
export function commandOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * The arguments `pid` was started with (its /proc cmdline), the program first; [] when it is gone.
 * A Node process is found by these: Node 24 names its main thread, so its comm reads "MainThread".
 */
export function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}
