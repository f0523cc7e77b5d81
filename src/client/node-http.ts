/**
 * The client's default HTTP stack on Node: `node:http`/`node:https` with a keep-alive Agent per transport.
 * Global `fetch` on Node builds a `Request`, a `Response` and web streams for every message, which halves
 * the calls per second a client can make; this stack hands the transport the socket's bytes directly.
 *
 * Nothing here is imported from `node:*` statically (node-modules.ts), so `toolwire/client` still loads in
 * browsers and edge runtimes, where the transport keeps using `fetch`.
 */
import type * as NodeHttp from 'node:http'
import type * as NodeNet from 'node:net'
import { cancellationOf } from './cancellation.js'
import { TransportError } from './errors.js'
import { type FetchLike, type HttpStack, type Incoming, type Outgoing, tooLarge } from './exchange.js'
import { checkedLookup, type AddressCheck } from '../wire/checked-lookup.js'
import { nodeModules } from './node-modules.js'

type HttpModule = typeof NodeHttp
type IncomingMessage = NodeHttp.IncomingMessage
type Agent = NodeHttp.Agent

/** Redirects followed per request, as fetch does (fetch §HTTP-redirect fetch: more than 20 is a network error). */
const MAX_REDIRECTS = 20

/**
 * Headers that may follow a redirect to another origin: the protocol's own. Everything else (Authorization,
 * API keys, cookies, any configured header) may be a credential and stays with the origin it was meant for.
 */
const CROSS_ORIGIN_SAFE = /^(?:accept|content-type|last-event-id|mcp-.*)$/

export interface NodeStackOptions {
  /** Follow redirects as fetch does (default); false hands a 3xx answer back as it is. */
  readonly followRedirects?: boolean
  /**
   * Judges every address a connection is made to: the DNS answer at connect time (so a name cannot resolve
   * to one address when checked and another when used), and a literal IP host before connecting.
   */
  readonly checkAddress?: AddressCheck
}

/** The node:http stack, or undefined where this is not Node. */
export function nodeHttpStack(options: NodeStackOptions = {}): HttpStack | undefined {
  const modules = nodeModules()
  if (!modules) return undefined
  const { checkAddress, followRedirects = true } = options
  const lookup = checkAddress && checkedLookup(modules.dns.lookup, checkAddress)
  const agents = new Map<string, Agent>()
  const agentFor = (protocol: string): Agent => {
    let agent = agents.get(protocol)
    if (!agent) {
      // Idle sockets are unref'd by the Agent, so a pool never keeps a process alive.
      agent = new (protocol === 'https:' ? modules.https : modules.http).Agent({ keepAlive: true })
      agents.set(protocol, agent)
    }
    return agent
  }
  /** Where a URL's requests go, worked out once per URL object (the transport sends to the same one). */
  let targets = new WeakMap<URL, Target>()
  const targetOf = (url: URL): Target => {
    let target = targets.get(url)
    if (!target) {
      const https = url.protocol === 'https:'
      target = {
        http: https ? modules.https : modules.http,
        agent: agentFor(url.protocol),
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname, // IPv6 literal
        port: url.port,
        path: url.pathname + url.search,
        ...(lookup && { lookup }),
      }
      targets.set(url, target)
    }
    return target
  }
  const send = async (outgoing: Outgoing): Promise<Incoming> => {
    let current = outgoing
    for (let redirects = 0; ; redirects++) {
      const target = targetOf(current.url)
      // A literal IP is connected to without DNS, so the lookup never sees it: judged here, each hop.
      if (checkAddress && modules.net.isIP(target.hostname)) {
        const refusal = await checkAddress(target.hostname, target.hostname)
        if (refusal !== undefined) throw new TransportError(refusal)
      }
      const response = await exchange(target, current, false)
      let next: Outgoing | undefined
      try {
        next = followRedirects ? redirectOf(current, response) : undefined
      } catch (error) {
        response.destroy()
        throw error
      }
      if (!next) return new NodeIncoming(response)
      response.destroy()
      if (redirects >= MAX_REDIRECTS) throw new TransportError(`More than ${MAX_REDIRECTS} redirects`)
      current = next
    }
  }
  return {
    send,
    close: () => {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
      targets = new WeakMap()
    },
  }
}

/** A URL's module, pooled Agent and request options. */
interface Target {
  readonly http: { request: HttpModule['request'] }
  readonly agent: Agent
  readonly protocol: string
  readonly hostname: string
  readonly port: string
  readonly path: string
  readonly lookup?: NodeNet.LookupFunction
}

/** One request on the pool; resolves when the answer's headers are in. */
function exchange(target: Target, outgoing: Outgoing, retried: boolean): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const cancel = outgoing.cancel
    if (cancel?.aborted) return reject(cancel.reason)
    // Node sets Content-Length itself when the whole body is passed to end().
    const request = target.http.request({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      method: outgoing.method,
      headers: outgoing.headers,
      agent: target.agent,
      ...(target.lookup && { lookup: target.lookup }),
    })
    let answered: IncomingMessage | undefined
    // Aborting stops the request, or the body being read once answered (streamable-http §Cancellation:
    // closing the stream cancels).
    const release = cancel?.onAbort(() => {
      const reason: unknown = cancel.reason
      request.destroy(reason instanceof Error ? reason : new Error(String(reason)))
      if (!answered) reject(reason)
    })
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || cancel?.aborted) return // reported by the body's reader, or by the abort
      release?.()
      // A kept-alive socket the server closed while idle fails at once; nothing was processed, so the
      // request goes out once more on a fresh connection (as node's documentation advises).
      if (!retried && request.reusedSocket && error.code === 'ECONNRESET') {
        resolve(exchange(target, outgoing, true))
      } else reject(error)
    })
    request.on('response', (response: IncomingMessage) => {
      answered = response
      response.on('error', ignore) // surfaces through text() or chunks()
      if (release) response.once('close', release)
      resolve(response)
    })
    request.end(outgoing.body)
  })
}

const ignore = (): void => undefined

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** The request a 3xx answer redirects to (fetch §HTTP-redirect fetch), or undefined for any other answer. */
function redirectOf(outgoing: Outgoing, response: IncomingMessage): Outgoing | undefined {
  const status = response.statusCode ?? 0
  if (!REDIRECTS.has(status)) return undefined
  const location = response.headers.location
  if (location === undefined) return undefined
  const url = new URL(location, outgoing.url)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TransportError(`Redirected to a ${url.protocol} URL`)
  // fetch turns a redirected POST into a GET without body for 301, 302 and 303.
  const asGet = status === 303 || ((status === 301 || status === 302) && outgoing.method === 'POST')
  const sameOrigin = url.origin === outgoing.url.origin
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(outgoing.headers)) {
    if (asGet && name === 'content-type') continue
    if (sameOrigin || CROSS_ORIGIN_SAFE.test(name)) headers[name] = value
  }
  const next: Outgoing = { method: asGet ? 'GET' : outgoing.method, url, headers }
  const body = asGet ? undefined : outgoing.body
  return {
    ...next,
    ...(body !== undefined && { body }),
    ...(outgoing.cancel && { cancel: outgoing.cancel }),
  }
}

const closedEarly = (cause: unknown): TransportError =>
  new TransportError('The server closed the connection before the answer was complete', { cause })

/** An answer as the transport reads it (a class: no closures per answer). */
class NodeIncoming implements Incoming {
  readonly #response: IncomingMessage
  readonly status: number
  readonly statusText: string

  constructor(response: IncomingMessage) {
    this.#response = response
    this.status = response.statusCode ?? 0
    this.statusText = response.statusMessage ?? ''
  }

  header(name: string): string | null {
    return headerOf(this.#response, name)
  }

  headerList(): [string, string][] {
    const list: [string, string][] = []
    const raw = this.#response.rawHeaders
    for (let index = 0; index + 1 < raw.length; index += 2)
      list.push([raw[index] as string, raw[index + 1] as string])
    return list
  }

  text(maxBytes: number): Promise<string> {
    return readText(this.#response, maxBytes)
  }

  chunks(): AsyncIterable<Uint8Array> {
    return chunksOf(this.#response)
  }

  async discard(): Promise<void> {
    // A finished answer gives its socket back to the pool; an unfinished one (a stream) is cut.
    const response = this.#response
    if (response.complete) response.resume()
    else response.destroy()
  }
}

/**
 * A header's value (lower-case name), or null. A header sent once is read straight from `rawHeaders`: the
 * `headers` object, which node builds from every line on first use, is made only for repeated names, where
 * node's rules for combining them apply.
 */
function headerOf(response: IncomingMessage, name: string): string | null {
  const raw = response.rawHeaders
  let found: string | undefined
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const key = raw[index] as string
    if (key.length !== name.length || (key !== name && key.toLowerCase() !== name)) continue
    if (found !== undefined) {
      const value = response.headers[name]
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
    }
    found = raw[index + 1] as string
  }
  return found ?? null
}

function readText(response: IncomingMessage, max: number): Promise<string> {
  const status = response.statusCode ?? 0
  if (Number(headerOf(response, 'content-length')) > max) {
    response.destroy()
    return Promise.reject(tooLarge(max, status))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      chunks.push(chunk)
      if (size > max) {
        response.destroy()
        reject(tooLarge(max, status))
      }
    })
    response.on('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString()),
    )
    response.on('error', (error: Error) => reject(closedEarly(error)))
    response.on('close', () => {
      if (!response.complete) reject(closedEarly(undefined))
    })
  })
}

async function* chunksOf(response: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of response) yield chunk as Buffer
  } catch (error) {
    throw closedEarly(error)
  }
  if (!response.complete) throw closedEarly(undefined)
}

/**
 * The stack as a fetch-shaped function, for what wraps fetch (the `auth` middleware): each request is read
 * back from its `Request` and the answer rebuilt as a `Response`.
 */
export function asFetch(stack: HttpStack): FetchLike {
  return async (request) => {
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => (headers[name] = value))
    const method = request.method.toUpperCase() as Outgoing['method']
    const body = method === 'GET' ? undefined : await request.text()
    const answer = await stack.send({
      method,
      url: new URL(request.url),
      headers,
      ...(body !== undefined && { body }),
      cancel: cancellationOf(request.signal),
    })
    const empty = answer.status === 204 || answer.status === 304
    return new Response(empty ? null : streamOf(answer.chunks()), {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headerList(),
    })
  }
}

/** `ReadableStream.from` (Node >= 20.6; the DOM typings lack it). */
const streamOf = (chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> =>
  (ReadableStream as unknown as { from(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> }).from(
    chunks,
  )
