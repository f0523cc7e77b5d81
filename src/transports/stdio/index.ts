/**
 * stdio transport: newline-delimited JSON-RPC on stdin/stdout, many requests in flight at once,
 * `notifications/cancelled` aborts a request (and then nothing is sent for it), logs only on stderr.
 */
import { isUtf8 } from 'node:buffer'
import type { Readable, Writable } from 'node:stream'
import type { DualEraHandler } from '../dual-era.js'
import type { LazyAbort } from '../../wire/lazy-abort.js'
import { StdioExchange } from './exchange.js'
import { encodeError, encodeResult } from '../../protocol/encode.js'
import type { Reply } from '../../protocol/dispatcher.js'
import { invalidRequest, McpError, nestedTooDeep, parseError } from '../../wire/errors.js'
import { DEFAULT_MAX_DEPTH, nestedDeeperThan, topLevelId } from '../../wire/json-depth.js'
import { PeerState } from '../../legacy/engine.js'
import { hasModernMeta } from '../../legacy/versions.js'
import { classify, isRecord, isRequestId, type JsonRpcRequest, type RequestId } from '../../wire/jsonrpc.js'
import type { ClientCapabilities, Implementation } from '../../wire/types.js'

/** A printable ASCII character other than space: nothing `trim` would take off. NaN (an empty line) is not. */
const isVisibleAscii = (code: number): boolean => code > 0x20 && code < 0x7f

export interface StdioOptions {
  readonly input?: Readable
  readonly output?: Writable
  /** Longest line accepted, in bytes (default 4 MiB); longer lines are answered with a parse error. */
  readonly maxLineBytes?: number
  /** On end of input, how long in-flight requests may still finish before they are aborted (default 5 s). */
  readonly drainMs?: number
}

export interface StdioConnection {
  /** Resolves when input has ended and every request has been answered or aborted. */
  readonly closed: Promise<void>
  /** Stops reading, aborts everything in flight, and resolves when done. */
  close(): Promise<void>
}

const NEWLINE = 0x0a
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A connection that opened with `initialize` (2025-11-25 basic/lifecycle): its negotiated terms. */
interface LegacyConnection {
  readonly session: { version: string; capabilities: ClientCapabilities; clientInfo?: Implementation }
  readonly peer: PeerState
  readonly detach: () => void
  /** Epoch ms of the `initialize` (the session's duration, when telemetry is on). */
  readonly startedAt: number
}

/**
 * Serves a server over stdio: JSON-RPC messages on stdin and stdout, one per line.
 *
 * @example
 * ```ts
 * import { serveStdio } from 'toolwire/stdio'
 *
 * serveStdio(server) // reads JSON-RPC from stdin, writes to stdout; logs go to stderr
 * ```
 */
export function serveStdio(server: DualEraHandler, options: StdioOptions = {}): StdioConnection {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const maxLine = options.maxLineBytes ?? 4 * 1024 * 1024
  const inFlight = new Map<RequestId, LazyAbort>()
  /** Open `subscriptions/listen` requests: they end with the input rather than drain. */
  const listens = new Set<RequestId>()
  let pending: Buffer[] = []
  let pendingSize = 0
  let discarding = false
  let ended = false
  const engine = server.legacy
  const maxDepth = server.maxParamsDepth ?? DEFAULT_MAX_DEPTH
  let legacy: LegacyConnection | undefined
  // Only a 2025-era connection needs a key, and the first random UUID of a process sets up its generator.
  let connectionKey: string | undefined
  const keyOf = (): string => (connectionKey ??= `stdio-${crypto.randomUUID()}`)
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))

  // Answers made while a chunk of input is read go out in one write when the chunk is done, as a hand-written
  // loop would write them. With several requests in flight, later answers are collected and written once
  // per event-loop turn, so one write carries many; a lone request's answer is written at once.
  let outgoing = ''
  let flushQueued = false
  let reading = false
  const flush = (): void => {
    flushQueued = false
    if (outgoing === '') return
    const data = outgoing
    outgoing = ''
    if (!output.writableEnded && !output.destroyed) output.write(data)
  }
  const send = (line: string): void => {
    if (reading) {
      outgoing += `${line}\n`
      return
    }
    if (outgoing === '' && inFlight.size <= 1) {
      if (!output.writableEnded && !output.destroyed) output.write(`${line}\n`)
      return
    }
    outgoing += `${line}\n`
    if (!flushQueued) {
      flushQueued = true
      setImmediate(flush)
    }
  }

  const backlog = (): number => output.writableLength + outgoing.length

  const maybeClosed = (): void => {
    if (ended && inFlight.size === 0) {
      flush()
      resolveClosed()
    }
  }

  const onLine = (bytes: Buffer): void => {
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      send(encodeError(undefined, parseError('line is not valid UTF-8')))
      return
    }
    onText(text)
  }

  const onText = (line: string): void => {
    // Most lines have nothing to trim: a visible character at each end needs no copy and no scan.
    const text =
      isVisibleAscii(line.charCodeAt(0)) && isVisibleAscii(line.charCodeAt(line.length - 1))
        ? line
        : line.trim()
    if (text === '') return
    // Checked on the raw line: parsing a deeply nested message is itself the attack.
    if (nestedDeeperThan(text, maxDepth + 1)) {
      send(encodeError(topLevelId(text), nestedTooDeep(maxDepth)))
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      send(encodeError(undefined, parseError()))
      return
    }
    const inbound = classify(parsed)
    switch (inbound.kind) {
      case 'invalid':
        send(encodeError(inbound.id, invalidRequest(inbound.reason)))
        return
      case 'response':
        // Only 2025-era connections get server-to-client requests; other responses answer nothing.
        if (legacy && engine) engine.answer(keyOf(), inbound.message)
        return
      case 'notification': {
        const { method, params } = inbound.message
        if (method === 'notifications/cancelled' && isRecord(params) && isRequestId(params.requestId)) {
          inFlight.get(params.requestId)?.abort(params.reason)
        }
        return
      }
      case 'request':
        break
    }
    const request = inbound.message
    if (inFlight.has(request.id)) {
      send(
        encodeError(
          request.id,
          invalidRequest(`request id ${JSON.stringify(request.id)} is already in flight`),
        ),
      )
      return
    }
    // 2025-era traffic: an `initialize`, then everything without the current revision's `_meta`.
    if (engine && (legacy || request.method === 'initialize') && !hasModernMeta(request.params)) {
      if (!legacy) return initialize(request)
      const exchange = new StdioExchange(send, backlog, (method, params, signal) =>
        engine.ask(keyOf(), (message) => send(JSON.stringify(message)), method, params, signal),
      )
      exchange.checkedDepth = maxDepth
      return track(request, exchange, engine.request(legacy.session, legacy.peer, request, exchange))
    }
    const exchange = new StdioExchange(send, backlog)
    // The line passed the depth check above: the input guard walks only `arguments`, as over HTTP.
    exchange.checkedDepth = maxDepth
    if (request.method === 'subscriptions/listen') listens.add(request.id)
    if (!server.answer) return track(request, exchange, server.handle(request, exchange))
    // A request answered synchronously is written with the rest of its chunk: no promise, no bookkeeping.
    let reply: ReturnType<NonNullable<typeof server.answer>>
    try {
      reply = server.answer(request, exchange)
    } catch (error) {
      return track(request, exchange, Promise.reject(error as Error))
    }
    if (reply instanceof Promise) return track(request, exchange, reply)
    deliver(request, exchange.controller, reply)
    listens.delete(request.id)
  }

  /** A 2025-era client's handshake: from now on this connection speaks its negotiated revision. */
  const initialize = (request: JsonRpcRequest): void => {
    if (!engine) return
    try {
      const negotiated = engine.negotiate(request.params ?? {})
      const session: LegacyConnection['session'] = {
        version: negotiated.version,
        capabilities: negotiated.capabilities,
      }
      if (negotiated.clientInfo) session.clientInfo = negotiated.clientInfo
      const peer = new PeerState()
      const detach = engine.attach(
        peer,
        (message) => send(JSON.stringify(message)),
        () => {},
      )
      legacy = { session, peer, detach, startedAt: Date.now() }
      send(encodeResult(request.id, negotiated.result))
    } catch (error) {
      if (!(error instanceof McpError)) throw error
      send(encodeError(request.id, error))
    }
  }

  const deliver = (request: JsonRpcRequest, controller: LazyAbort, reply: Reply | null): void => {
    if (!reply || controller.aborted) return
    send(reply.body)
    // A listen stream the server ended is also torn down with notifications/cancelled on stdio
    // (patterns/cancellation asks for a cancel, patterns/subscriptions §Graceful Closure for a result; we
    // send both): the result first, then the cancel.
    if (request.method === 'subscriptions/listen' && reply.status === 200) {
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: request.id, reason: 'server closed the subscription' },
        }),
      )
    }
  }

  const track = (request: JsonRpcRequest, exchange: StdioExchange, handled: Promise<Reply | null>): void => {
    const controller = exchange.controller
    inFlight.set(request.id, controller)
    handled
      .then((reply) => deliver(request, controller, reply))
      .catch((error: unknown) => server.logger.error('stdio request failed', { error: String(error) }))
      .finally(() => {
        inFlight.delete(request.id)
        listens.delete(request.id)
        maybeClosed()
      })
  }

  const onData = (chunk: Buffer): void => {
    reading = true
    try {
      readChunk(chunk)
    } finally {
      reading = false
      flush()
    }
  }

  const readChunk = (chunk: Buffer): void => {
    // The usual chunk: whole lines (and perhaps the start of the next), valid UTF-8, shorter than the line
    // bound, nothing held over. It is decoded once and split as text, rather than viewed and decoded line by
    // line; anything else takes the byte-wise path below, whose checks give the same answers.
    const last = chunk.lastIndexOf(NEWLINE)
    if (last !== -1 && pendingSize === 0 && !discarding && chunk.length <= maxLine && isUtf8(chunk)) {
      const text = chunk.toString('utf8', 0, last)
      let from = 0
      for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', from)) {
        onText(text.slice(from, index))
        from = index + 1
      }
      onText(from === 0 ? text : text.slice(from))
      if (last + 1 < chunk.length) {
        pending.push(Buffer.from(chunk.subarray(last + 1)))
        pendingSize = chunk.length - last - 1
      }
      return
    }
    let start = 0
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, index)
      start = index + 1
      if (discarding) {
        discarding = false
        continue
      }
      if (pendingSize + piece.length > maxLine) {
        pending = []
        pendingSize = 0
        send(encodeError(undefined, parseError(`line exceeds ${maxLine} bytes`)))
        continue
      }
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece])
      pending = []
      pendingSize = 0
      onLine(line)
    }
    if (start < chunk.length && !discarding) {
      const rest = chunk.subarray(start)
      if (pendingSize + rest.length > maxLine) {
        pending = []
        pendingSize = 0
        discarding = true
        send(encodeError(undefined, parseError(`line exceeds ${maxLine} bytes`)))
      } else {
        pending.push(Buffer.from(rest))
        pendingSize += rest.length
      }
    }
  }

  const abortAll = (): void => {
    for (const controller of inFlight.values()) controller.abort('server closing')
  }

  const onEnd = (): void => {
    if (ended) return
    ended = true
    if (pendingSize > 0) onLine(Buffer.concat(pending))
    pending = []
    legacy?.detach()
    if (legacy) engine?.endConnection(legacy.startedAt, legacy.session.version)
    for (const id of listens) inFlight.get(id)?.abort('input ended')
    maybeClosed()
    if (inFlight.size > 0) setTimeout(abortAll, options.drainMs ?? 5_000).unref()
  }

  input.on('data', onData)
  input.on('end', onEnd)
  input.on('close', onEnd)
  input.on('error', onEnd)

  return {
    closed,
    close: async () => {
      input.off('data', onData)
      // Listen streams end with their graceful result before anything still running is aborted.
      server.close()
      await new Promise((resolve) => setImmediate(resolve))
      onEnd()
      abortAll()
      await closed
    },
  }
}
