/**
 * The HTTP the OAuth client uses, before safe-fetch's rules: an injected `fetch` as given; on Node the
 * client's node:http stack without redirects, whose connections are refused when DNS answers a private
 * address for a public MCP server; elsewhere the global `fetch` (literal hosts are judged by safe-fetch).
 */
import { asFetch, nodeHttpStack } from '../node-http.js'
import { resolveHost } from '../node-modules.js'
import { isPrivateAddress, literalAddress, type PrivateAddressTest } from '../../wire/private-address.js'
import { privateRefusal, type FetchLimits } from './safe-fetch.js'
import type { OAuthOptions } from './types.js'

export function oauthFetch(serverUrl: URL, options: OAuthOptions): FetchLimits {
  const isPrivate = options.isPrivateAddress ?? isPrivateAddress
  let serverPrivate: Promise<boolean> | undefined
  const privateAllowed = (): Promise<boolean> =>
    (serverPrivate ??= serverOnPrivateAddress(serverUrl.hostname, isPrivate))
  const policy = { isPrivate, privateAllowed }
  let fetch: FetchLimits['fetch']
  if (options.fetch) fetch = options.fetch
  else {
    const stack = nodeHttpStack({
      followRedirects: false,
      checkAddress: (address, host) => privateRefusal(policy, address, host),
    })
    const viaStack = stack && asFetch(stack)
    fetch = viaStack
      ? (input, init) => viaStack(new Request(input, init))
      : (input, init) => globalThis.fetch(input, init)
  }
  return {
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBytes: options.maxResponseBytes ?? 256 * 1024,
    fetch,
    ...policy,
  }
}

/**
 * The MCP server is on a private network when its host is a private literal or `localhost`, or (on Node)
 * when its name resolves to a private address: an intranet server whose authorization server is beside it.
 * A name that cannot be resolved here counts as public (nothing private is allowed for it).
 */
async function serverOnPrivateAddress(hostname: string, isPrivate: PrivateAddressTest): Promise<boolean> {
  const literal = literalAddress(hostname)
  if (literal !== undefined) return isPrivate(literal)
  const addresses = await resolveHost(hostname).catch(() => undefined)
  return addresses?.some(isPrivate) ?? false
}
