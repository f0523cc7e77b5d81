/**
 * Warnings about how a process is set up (a missing option, a per-process secret) are true for the whole
 * process: said once, they are read; repeated for every server or handler a process builds (a test suite
 * builds hundreds), they bury everything else on stderr.
 */
import type { ServerLogger } from './dispatcher.js'

const said = new Set<string>()

/** Logs `message` through `logger` the first time `key` is warned about in this process; later calls do nothing. */
export function warnOncePerProcess(logger: ServerLogger, key: string, message: string): void {
  if (said.has(key)) return
  said.add(key)
  logger.warn(message)
}
