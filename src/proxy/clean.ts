/** Upstream text made safe to show: what the proxy passes on is untrusted (server/tools §Security Considerations). */
import { stripControls } from '../security/sanitize.js'

/** A copy of `value` with control characters and escape sequences removed from every string in it. */
export function cleanStrings<T>(value: T): T {
  if (typeof value === 'string') return stripControls(value) as T
  if (Array.isArray(value)) return value.map((item: unknown) => cleanStrings(item)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [stripControls(key), cleanStrings(item)]),
    ) as T
  }
  return value
}
