/**
 * Which Host names a listener answers, derived from the address it binds (DNS rebinding:
 * basic/transports/streamable-http §Security Warning: "Servers MUST validate the Origin header", and bind
 * locally). One rule for `serveNode`, `createNodeHandler` and the CLI's `serve`, `bridge` and `gateway`:
 * a loopback bind answers loopback names; a wildcard bind (`0.0.0.0`, `::`, empty) the machine's own names and
 * addresses; any other bind that address; each plus the caller's `allowedHosts`. The port is not pinned: a
 * container or a port forward shows the listener under another port, and a rebinding changes the name.
 */
import { hostname, networkInterfaces } from 'node:os'
import { hostLiteral, isLoopbackAddress, isLoopbackHost, loopbackPolicy, type OriginPolicy } from './guard.js'

/** Bind addresses that listen on every interface. */
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', ''])

/** Whether binding `host` listens on every interface. */
export const isWildcardBind = (host: string): boolean => WILDCARD_BINDS.has(host.trim())

/**
 * The machine's own names: `localhost`, the loopback literals, `os.hostname()` and every address of every
 * interface, read when called (a listener reads them once, when it is made).
 */
export function machineHosts(): string[] {
  const names = new Set(loopbackPolicy().allowedHosts)
  const own = hostname().trim().toLowerCase()
  if (own !== '') names.add(own)
  for (const addresses of Object.values(networkInterfaces()))
    for (const entry of addresses ?? []) names.add(hostLiteral(entry.address))
  return [...names]
}

/**
 * The Host policy for a listener bound to `host`, plus `allowedHosts`; `allowedOrigins` is kept as given.
 *
 * @example
 * ```ts
 * bindPolicy('0.0.0.0', { allowedHosts: ['mcp.example.com'] }) // this machine's names and mcp.example.com
 * ```
 */
export function bindPolicy(
  host: string,
  extra: {
    readonly allowedHosts?: readonly string[]
    readonly allowedOrigins?: readonly string[]
    readonly extraOrigins?: readonly string[]
  } = {},
): OriginPolicy {
  const literal = hostLiteral(host)
  const base = isWildcardBind(host)
    ? machineHosts()
    : isLoopbackBind(host)
      ? [...(loopbackPolicy().allowedHosts ?? []), literal]
      : [literal]
  return {
    allowedHosts: [...new Set([...base, ...(extra.allowedHosts ?? [])])],
    ...(extra.allowedOrigins && { allowedOrigins: extra.allowedOrigins }),
    ...(extra.extraOrigins && { extraOrigins: extra.extraOrigins }),
  }
}

/** Whether binding `host` listens on loopback only (`localhost`, 127.0.0.0/8, ::1). */
export const isLoopbackBind = (host: string): boolean =>
  isLoopbackHost(hostLiteral(host)) || isLoopbackAddress(host.trim())

/** The start-up warning for a listener reachable from other machines with no authentication. */
export const openBindWarning = (address: string): string =>
  `listening on ${address} with no authentication: anyone who can reach this address can call every tool. ` +
  'Configure authentication (security.auth; for the CLI --bearer-token-env or --jwks-url) or bind 127.0.0.1'
