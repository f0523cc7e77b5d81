/** DNS-rebinding defence: Host and Origin checks (streamable-http §Security & Endpoint). */

export interface OriginPolicy {
  /** Host header values accepted (host or host:port). Undefined accepts any Host. */
  readonly allowedHosts?: readonly string[]
  /**
   * Origins accepted (scheme://host[:port]). Undefined accepts an Origin only when it names the Host itself.
   */
  readonly allowedOrigins?: readonly string[]
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** The default policy for a server bound to a loopback address: only loopback hosts and origins. */
export function loopbackPolicy(): OriginPolicy {
  return { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] }
}

export const isLoopbackHost = (host: string): boolean => LOOPBACK.has(host.toLowerCase())

/** Whether a socket address is loopback: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

function hostname(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase()
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1)
  const colon = value.lastIndexOf(':')
  return colon === -1 ? value : value.slice(0, colon)
}

/** Whether `host` is `entry` or `entry:port`, spelled exactly as listed. */
function listedAs(host: string, entry: string): boolean {
  if (host.length === entry.length) return host === entry
  return (
    host.length > entry.length &&
    host.charCodeAt(entry.length) === 0x3a && // ':'
    host.startsWith(entry) &&
    host.indexOf(':', entry.length + 1) === -1
  )
}

function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (host === undefined) return false
  // Clients send the Host as it is listed (`127.0.0.1:3000` against `127.0.0.1`) on nearly every request:
  // answer those without copying the header.
  for (const entry of allowed) if (listedAs(host, entry)) return true
  const full = host.trim().toLowerCase()
  const name = hostname(full)
  return allowed.some((entry) => {
    const e = entry.toLowerCase()
    return e === full || e === name
  })
}

/** Returns a reason to refuse (403), or undefined when the request may proceed. */
export function checkOrigin(
  policy: OriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  if (policy.allowedHosts && !hostAllowed(host, policy.allowedHosts))
    return `Host ${host ?? '(none)'} is not allowed`
  if (origin === undefined || origin === '') return undefined
  if (policy.allowedOrigins) {
    return policy.allowedOrigins.includes(origin) ? undefined : `Origin ${origin} is not allowed`
  }
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return `Origin ${origin} is not allowed`
  }
  const originHost = url.host.toLowerCase()
  if (host !== undefined && originHost === host.trim().toLowerCase()) return undefined
  // With a loopback-only Host policy, any loopback origin (another local port) is also fine.
  if (policy.allowedHosts && isLoopbackHost(url.hostname) && policy.allowedHosts.some(isLoopbackHost))
    return undefined
  return `Origin ${origin} is not allowed`
}
