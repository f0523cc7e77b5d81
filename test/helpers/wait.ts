/**
 * Waiting for an event, never for a fixed time: a test polls for what it expects with a deadline generous
 * enough for a busy machine, and goes on as soon as it holds.
 */
export const GENEROUS_MS = 10_000

/** The deadline of `until(check, what)`: the proxy and gateway tests wait on child processes. */
export const SLOW_MS = 20_000

/**
 * Resolves once `check` is true, polling briefly; fails after `timeoutMs`. `until(check, 'what')` names what
 * it waits for and allows `SLOW_MS`.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutOrWhat: number | string = GENEROUS_MS,
  what = 'condition',
): Promise<void> {
  const [timeoutMs, label] =
    typeof timeoutOrWhat === 'string' ? [SLOW_MS, timeoutOrWhat] : [timeoutOrWhat, what]
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${label} not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** The text of a tool result's content blocks, one per line. */
export const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((b) => b.text ?? '')
    .join('\n')
