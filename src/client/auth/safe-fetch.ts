/**
 * Every request the OAuth client makes to metadata documents and authorization servers goes through here:
 * https only (loopback http excepted), no redirects followed, bounded time and size
 * (basic/authorization/security-considerations §Communication Security, §Open Redirection), and no
 * private address unless the MCP server is on one (private-address.ts). Here the host is judged as written
 * (an IP literal or `localhost`), which works with any fetch; on Node the default fetch also judges the
 * address each name resolves to, when it connects (oauth-fetch.ts).
 */
import { readStreamCapped } from '../../wire/read-capped.js'
import { AuthorizationError } from './errors.js'
import { addressKind, literalAddress, type PrivateAddressTest } from '../../wire/private-address.js'

export interface FetchLimits {
  readonly timeoutMs: number
  readonly maxBytes: number
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>
  readonly isPrivate: PrivateAddressTest
  /** Whether the MCP server itself is on a private address, so its OAuth URLs may be too. */
  readonly privateAllowed: () => Promise<boolean>
}

/** Why a private `address` for `host` is refused, or undefined when it is public or allowed. */
export async function privateRefusal(
  limits: Pick<FetchLimits, 'isPrivate' | 'privateAllowed'>,
  address: string,
  host: string,
): Promise<string | undefined> {
  if (!limits.isPrivate(address) || (await limits.privateAllowed())) return undefined
  const named = host === address ? address : `${host} (${address})`
  return `${named} is ${addressKind(address)} and the MCP server is not on a private network; refusing to fetch it`
}

/** `localhost`, 127.0.0.0/8 and ::1: the only hosts plain http is allowed for. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase()
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host)
}

/** Refuses a URL that is not https (or http on a loopback host); `what` names it in the message. */
export function requireSecureUrl(value: unknown, what: string): URL {
  let url: URL
  try {
    url = new URL(String(value))
  } catch {
    throw new AuthorizationError(`${what} is not a valid URL`)
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) return url
  throw new AuthorizationError(`${what} must use https (got ${url.protocol}//${url.host})`)
}

/** A fetch for oauth4webapi and metadata requests: returns a fully read response or throws. */
export function safeFetch(limits: FetchLimits): (input: string, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = requireSecureUrl(input, `The authorization request to ${safeOrigin(input)}`)
    const literal = literalAddress(url.hostname)
    const refusal = literal === undefined ? undefined : await privateRefusal(limits, literal, url.hostname)
    if (refusal !== undefined) throw new AuthorizationError(refusal)
    const timeout = AbortSignal.timeout(limits.timeoutMs)
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    let response: Response
    try {
      response = await limits.fetch(url.href, { ...init, redirect: 'manual', signal })
    } catch (error) {
      if (timeout.aborted)
        throw new AuthorizationError(`${url.origin} did not answer within ${limits.timeoutMs} ms`)
      throw new AuthorizationError(`Cannot reach ${url.origin}: ${message(error)}`, { cause: error })
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel()
      const location = response.headers.get('location') ?? ''
      throw new AuthorizationError(
        `${url.origin}${url.pathname} redirected to ${safeOrigin(location)}; redirects are not followed`,
      )
    }
    const body = await readCapped(response, limits.maxBytes, url, timeout)
    return new Response(body, { status: response.status, headers: response.headers })
  }
}

async function readCapped(
  response: Response,
  max: number,
  url: URL,
  timeout: AbortSignal,
): Promise<ArrayBuffer> {
  const tooBig = (): AuthorizationError =>
    new AuthorizationError(`The response from ${url.origin} is larger than ${max} bytes`)
  if (!response.body) return new ArrayBuffer(0)
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    await response.body.cancel()
    throw tooBig()
  }
  let body: Uint8Array | undefined
  try {
    body = await readStreamCapped(response.body, max)
  } catch (error) {
    if (timeout.aborted) throw new AuthorizationError(`${url.origin} did not answer within the time limit`)
    throw new AuthorizationError(`Reading the response from ${url.origin} failed: ${message(error)}`)
  }
  if (!body) throw tooBig()
  return body.slice().buffer
}

/** Only the origin of a URL goes into messages: paths and queries may carry codes or tokens. */
export function safeOrigin(value: string): string {
  try {
    return new URL(value).origin
  } catch {
    return 'an invalid URL'
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
