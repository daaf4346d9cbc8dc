// Awaiting a state, not a time: a loaded 2-core machine makes any fixed number of short waits
// flaky, so a test repeats its step (running the alarms, say) until the state holds, within a
// deadline far beyond any normal run (and inside the test's own timeout). The caller's own expectation then says what was wrong.

/** Runs `step` until `done()` holds or `withinMs` passes; true when `done()` held. */
export async function until(
  done: () => Promise<boolean>,
  step: () => Promise<unknown> = async () => {},
  { withinMs = 30_000, pauseMs = 100 } = {},
): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await step();
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return true;
}
