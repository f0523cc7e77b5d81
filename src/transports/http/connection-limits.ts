/**
 * Connection limits for a listening node:http server. Each open connection holds a file descriptor and
 * memory; without limits one address opening a thousand slow connections exhausts the descriptors and
 * every other caller times out. Connections are counted per client network (IPv6 by /64, as for rate
 * limits) and in total; a connection over a limit is answered at once and closed.
 */
import type { Server as NodeHttpServer } from 'node:http'
import type { Socket } from 'node:net'
import { addressKey } from '../../protocol/address.js'

export interface ConnectionLimitOptions {
  /** Open connections one client address may hold (default 64); more are answered 429 and closed. */
  readonly maxConnectionsPerAddress?: number
  /** Open connections in total (default 1024); more are answered 503 and closed. */
  readonly maxConnections?: number
  /** Time a client has to send the request headers, in ms (default 10 s). */
  readonly headersTimeoutMs?: number
  /** Time a client has to send the whole request, body included, in ms (default 30 s). */
  readonly requestTimeoutMs?: number
}

export const CONNECTION_DEFAULTS = {
  maxConnectionsPerAddress: 64,
  maxConnections: 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
} as const

/** How often node checks the header and request timeouts (its default, 30 s, would let them run late). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000

const refusal = (status: string, reason: string): string =>
  `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`

function refuse(socket: Socket, status: string, reason: string): void {
  socket.on('error', () => {}) // the peer may already be gone
  socket.pause() // node's HTTP parser never sees a request on a refused connection
  socket.end(refusal(status, reason))
  // A peer that does not read the refusal must not keep the descriptor either.
  setTimeout(() => socket.destroy(), 1_000).unref()
}

/** The counted connection's address key, kept on the socket for the shared close listener. */
const ADDRESS_KEY = Symbol('toolwire.connectionAddress')
type CountedSocket = Socket & { [ADDRESS_KEY]: string }

/** Applies the limits to `httpServer`; call before it listens. */
export function limitConnections(httpServer: NodeHttpServer, options: ConnectionLimitOptions): void {
  const perAddress = options.maxConnectionsPerAddress ?? CONNECTION_DEFAULTS.maxConnectionsPerAddress
  const total = options.maxConnections ?? CONNECTION_DEFAULTS.maxConnections
  for (const [name, value] of Object.entries({ perAddress, total })) {
    if (!(Number.isInteger(value) && value > 0)) throw new TypeError(`connection limit ${name} must be > 0`)
  }
  httpServer.headersTimeout = options.headersTimeoutMs ?? CONNECTION_DEFAULTS.headersTimeoutMs
  httpServer.requestTimeout = options.requestTimeoutMs ?? CONNECTION_DEFAULTS.requestTimeoutMs
  const open = new Map<string, number>()
  let count = 0
  // One listener for every connection, finding the connection's key on the socket: a closure and a `once`
  // wrapper per connection took about 250 bytes, held as long as the connection (a listen stream's: hours).
  // A socket closes once, so `on` is enough.
  function release(this: CountedSocket): void {
    count--
    const key = this[ADDRESS_KEY]
    const left = (open.get(key) ?? 1) - 1
    if (left === 0) open.delete(key)
    else open.set(key, left)
  }
  httpServer.on('connection', (socket: Socket) => {
    if (count >= total) return refuse(socket, '503 Service Unavailable', 'too many connections')
    const key = socket.remoteAddress === undefined ? '' : addressKey(socket.remoteAddress)
    const held = open.get(key) ?? 0
    if (held >= perAddress)
      return refuse(socket, '429 Too Many Requests', 'too many connections from your address')
    open.set(key, held + 1)
    count++
    ;(socket as CountedSocket)[ADDRESS_KEY] = key
    socket.on('close', release)
  })
}
