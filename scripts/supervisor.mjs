// `npm start` keeps what it starts alive: a service whose process exits, or whose health URL stops
// answering (wrangler dev stays up when its workerd dies), is reported and started again. The
// issuer objects' alarms then finish what was under way, as the crash test shows. Too many
// restarts in a short time is a fault a restart will not cure: the supervisor gives up.
import { answers, stopChildren } from "./lib.mjs";

/**
 * Runs `start()` (which returns a child leading its own process group) and keeps it running.
 * `healthUrl` is polled once the service has answered; `failuresBeforeRestart` consecutive misses
 * restart it. `onUp(restarted)` runs each time it answers after a (re)start; `onGiveUp(reason)`
 * runs when restarts come too fast. `stop()` ends it for good.
 */
export function supervise({
  name,
  start,
  healthUrl,
  log = console.log,
  onUp = async () => {},
  onGiveUp,
  intervalMs = 2000,
  failuresBeforeRestart = 3,
  maxRestarts = 5,
  windowMs = 5 * 60_000,
}) {
  let child = start();
  let stopped = false;
  let up = false;
  let misses = 0;
  let restarting = false;
  let starts = 0;
  const restarts = [];

  const watchExit = (c) =>
    c.once("exit", (code, signal) => {
      if (stopped || restarting || c !== child) return;
      void restart(`its process exited (${code ?? signal})`);
    });
  watchExit(child);

  async function restart(reason) {
    if (restarting || stopped) return;
    restarting = true;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && restarts[0] < now - windowMs) restarts.shift();
    if (restarts.length > maxRestarts) {
      log(`[${name}] ${reason}; it was restarted ${maxRestarts} times within ${windowMs / 60_000} min: giving up`);
      restarting = false;
      onGiveUp?.(reason);
      return;
    }
    log(`[${name}] ${reason}: restarting it`);
    await stopChildren([child], 5000);
    if (stopped) return;
    up = false;
    misses = 0;
    child = start();
    watchExit(child);
    restarting = false;
  }

  // One probe at a time: a probe waits up to 5 s, longer than the interval between probes.
  let wake;
  const pause = () => new Promise((r) => (wake = setTimeout(r, intervalMs)));
  (async () => {
    while (!stopped) {
      await pause();
      if (stopped || restarting) continue;
      // HEAD: npm start shows one line per request, and leaves these out (scripts/dev-output.mjs).
      const ok = await answers(healthUrl, Math.max(intervalMs, 5000), "HEAD");
      if (stopped || restarting) continue;
      if (ok) {
        misses = 0;
        if (!up) {
          up = true;
          const restarted = starts++ > 0;
          if (restarted) log(`[${name}] answering again at ${healthUrl}`);
          await onUp(restarted);
        }
        // Not yet up after a (re)start is its start-up time, not a fault.
      } else if (up && ++misses >= failuresBeforeRestart) void restart(`stopped answering at ${healthUrl}`);
    }
  })();

  return {
    get child() {
      return child;
    },
    async stop() {
      stopped = true;
      clearTimeout(wake);
      await stopChildren([child]);
    },
  };
}
