/**
 * One GET of a document read at load time, on Node's http stack: every address is judged before a byte is
 * sent (an IP literal or `localhost` before connecting, any other name by what DNS answers, inside the
 * socket's own lookup so the address checked is the one connected to: no DNS rebinding between check and
 * use), redirects are followed by hand and each hop is judged the same way, and the body is cut off past a
 * size (security best practices §Server-Side Request Forgery (SSRF)).
 */
import type * as NodeHttp from 'node:http'
import { type AddressCheck, checkedLookup } from './checked-lookup.js'
import { DocumentLoadError } from './document-load-error.js'
import { nodeBuiltin } from './node-builtins.js'
import { literalAddress } from './private-address.js'

export interface GuardedGetOptions {
  /** Why an address (the host's, after DNS) must not be connected to, or undefined to allow it. */
  readonly check: AddressCheck
  readonly maxBytes: number
  readonly maxRedirects: number
  readonly signal: AbortSignal
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** The body at `url` (after redirects, each judged); throws `DocumentLoadError` for any refusal. */
export async function guardedGet(url: URL, options: GuardedGetOptions): Promise<Uint8Array> {
  const http = nodeBuiltin('node:http')
  const https = nodeBuiltin('node:https')
  const dns = nodeBuiltin('node:dns')
  if (!http || !https || !dns) throw new DocumentLoadError('Fetching a document over http(s) needs Node')
  const lookup = checkedLookup(dns.lookup, options.check)
  let current = url
  for (let redirects = 0; ; redirects++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:')
      throw new DocumentLoadError(
        `${url.origin} redirected to a ${current.protocol} URL; only http(s) is followed`,
      )
    // An IP literal is connected to without DNS, so the lookup never sees it: judged here, each hop.
    const host = current.hostname.startsWith('[') ? current.hostname.slice(1, -1) : current.hostname
    const literal = literalAddress(host)
    const refusal = literal === undefined ? undefined : await options.check(literal, host)
    if (refusal !== undefined) throw new DocumentLoadError(refusal)
    const response = await request(
      current.protocol === 'https:' ? https : http,
      current,
      lookup,
      options.signal,
    )
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (REDIRECTS.has(status) && location !== undefined) {
      response.destroy()
      if (redirects >= options.maxRedirects)
        throw new DocumentLoadError(
          `${url.origin}${url.pathname} redirected more than ${options.maxRedirects} times`,
        )
      try {
        current = new URL(location, current)
      } catch {
        throw new DocumentLoadError(`${current.origin} redirected to an invalid URL`)
      }
      continue
    }
    if (status < 200 || status >= 300) {
      response.destroy()
      throw new DocumentLoadError(`${current.origin}${current.pathname} answered HTTP ${status}`)
    }
    return readCapped(response, options.maxBytes, current)
  }
}

function request(
  module: { request: (typeof NodeHttp)['request'] },
  url: URL,
  lookup: ReturnType<typeof checkedLookup>,
  signal: AbortSignal,
): Promise<NodeHttp.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = module.request(url, {
      method: 'GET',
      // No pooled sockets: a load fetches a few resources once; nothing is kept open after it.
      agent: false,
      lookup,
      signal,
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
    })
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EREFUSEDADDRESS') reject(new DocumentLoadError(error.message))
      else if (signal.aborted) reject(signal.reason)
      else
        reject(
          new DocumentLoadError(`Cannot fetch ${url.origin}${url.pathname}: ${error.message}`, {
            cause: error,
          }),
        )
    })
    outgoing.on('response', resolve)
    outgoing.end()
  })
}

function readCapped(response: NodeHttp.IncomingMessage, max: number, url: URL): Promise<Uint8Array> {
  const tooLarge = (): DocumentLoadError =>
    new DocumentLoadError(`${url.origin}${url.pathname} is larger than ${max} bytes`)
  if (Number(response.headers['content-length'] ?? 0) > max) {
    response.destroy()
    return Promise.reject(tooLarge())
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        response.destroy()
        reject(tooLarge())
      } else chunks.push(chunk)
    })
    response.on('end', () => resolve(Buffer.concat(chunks)))
    response.on('error', (error) =>
      reject(new DocumentLoadError(`Reading ${url.origin}${url.pathname} failed: ${error.message}`)),
    )
    response.on('close', () => {
      if (!response.complete)
        reject(new DocumentLoadError(`${url.origin}${url.pathname} closed before its end`))
    })
  })
}
