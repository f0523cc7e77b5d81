/** DNS-rebinding defence: Host and Origin checks (streamable-http §Security & Endpoint). */

export interface OriginPolicy {
  /** Host header values accepted (host or host:port). Undefined accepts any Host. */
  readonly allowedHosts?: readonly string[]
  /**
   * Origins accepted (scheme://host[:port]). Undefined accepts an Origin only when it names the Host itself.
   */
  readonly allowedOrigins?: readonly string[]
  /**
   * Origins accepted besides those the rules above accept (the CORS origins a listener serves): adding one
   * keeps the default rule for the others, where `allowedOrigins` replaces it.
   */
  readonly extraOrigins?: readonly string[]
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** The default policy for a server bound to a loopback address: only loopback hosts and origins. */
export function loopbackPolicy(): OriginPolicy {
  return { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] }
}

export const isLoopbackHost = (host: string): boolean => LOOPBACK.has(host.toLowerCase())

/** An address as it appears in a Host header: IPv6 in brackets, without a zone (`%eth0`). */
export function hostLiteral(address: string): string {
  const value = address.trim().toLowerCase()
  if (value.startsWith('[') || !value.includes(':')) return value
  // An IPv4 client of a dual-stack listener: the socket says `::ffff:192.0.2.1`, the Host `192.0.2.1`.
  if (value.startsWith('::ffff:') && value.includes('.')) return value.slice(7)
  const zone = value.indexOf('%')
  return `[${zone === -1 ? value : value.slice(0, zone)}]`
}

/** Whether a socket address is loopback: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

/**
 * The name part of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), lowercased; undefined when what
 * follows the name is not a port (`127.0.0.1:80.evil.example` names no loopback host).
 */
function hostname(hostHeader: string): string | undefined {
  const value = hostHeader.trim().toLowerCase()
  // The name ends after an IPv6 literal's bracket, else at the last colon.
  const end = value.startsWith('[') ? value.indexOf(']') + 1 : value.lastIndexOf(':')
  if (end === -1 || end === value.length) return value // no port
  if (end === 0) return undefined // `[` with no `]`, or a port with no name
  return value.charCodeAt(end) === 0x3a && isPort(value, end + 1) ? value.slice(0, end) : undefined
}

/** Whether `text` from `start` to its end is a port: one to five digits. */
function isPort(text: string, start: number): boolean {
  const digits = text.length - start
  if (digits < 1 || digits > 5) return false
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
}

/** Whether `host` is `entry` or `entry:port`, spelled exactly as listed. */
function listedAs(host: string, entry: string): boolean {
  if (host.length === entry.length) return host === entry
  return (
    host.length > entry.length &&
    host.charCodeAt(entry.length) === 0x3a && // ':'
    host.startsWith(entry) &&
    isPort(host, entry.length + 1)
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
  if (policy.extraOrigins?.includes(origin)) return undefined
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

/**
 * The last check and its verdict. A client sends the same Host (and the same Origin, or none) on every
 * request, so nearly every check is the one just made. Module variables, not an object's fields: reading
 * and writing these costs less than the check they save. Policies are fixed when a handler is made.
 */
let lastPolicy: OriginPolicy | undefined
let lastHost: string | undefined
let lastOrigin: string | undefined
let lastVerdict: string | undefined

/** `checkOrigin`, answered from the last check when it is the same one. */
export function checkOriginAgain(
  policy: OriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  if (policy === lastPolicy && host === lastHost && origin === lastOrigin) return lastVerdict
  lastVerdict = checkOrigin(policy, host, origin)
  lastPolicy = policy
  lastHost = host
  lastOrigin = origin
  return lastVerdict
}
