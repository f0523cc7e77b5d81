/**
 * Waiting for an event, never for a fixed time: a test polls for what it expects with a deadline generous
 * enough for a busy machine, and goes on as soon as it holds.
 */
export const GENEROUS_MS = 10_000

/** Resolves once `check` is true, polling briefly; fails after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = GENEROUS_MS,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
