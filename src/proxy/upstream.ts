/**
 * The proxy's one connection to its upstream server, shared by every downstream caller. A stdio upstream is
 * one process: when it dies, the calls in flight fail with a clear error and the next use starts it again,
 * after a backoff that grows while restarts keep failing (so a server that crashes at start-up is not
 * respawned in a tight loop). Errors are translated into the downstream's protocol errors here, once.
 */
import type { Client } from '../client/client.js'
import { pause } from '../client/pause.js'
import {
  InvalidResponseError,
  RequestCancelledError,
  RequestTimeoutError,
  TransportError,
  UnknownToolError,
} from '../client/errors.js'
import type { RequestContext } from '../protocol/context.js'
import { stripControls } from '../security/sanitize.js'
import {
  internalError,
  invalidParams,
  McpError,
  upstreamError,
  upstreamInvalid,
  upstreamUnavailable,
} from '../wire/errors.js'

export interface RestartOptions {
  /** Wait before the second restart in a row (default 250 ms); the first is immediate. */
  readonly initialDelayMs?: number
  /** Longest wait between restarts (default 10 s). */
  readonly maxDelayMs?: number
}

/**
 * How a crashed stdio upstream is restarted by default: the first restart at once, then 250 ms doubling up
 * to 10 s while it keeps dying.
 *
 * @example
 * ```ts
 * const proxy = await defineProxy({
 *   target: { command: 'node', args: ['server.js'] },
 *   restart: { ...RESTART_DEFAULTS, maxDelayMs: 60_000 },
 * })
 * ```
 */
export const RESTART_DEFAULTS = { initialDelayMs: 250, maxDelayMs: 10_000 } as const

/**
 * Per-caller upstreams: a call goes to the connection that declares what its caller declared (and, with
 * `isolate`, that belongs to its principal), or to the shared one.
 */
export interface CallerPool {
  use<T>(
    ctx: RequestContext,
    work: (client: Client) => Promise<T>,
    signal?: AbortSignal | (() => AbortSignal),
  ): Promise<T>
  /** Connections of their own open now. */
  readonly size: number
  close(): Promise<void>
}

/**
 * One upstream connection shared by every downstream caller: opened on first use, reopened (with backoff)
 * after a stdio upstream dies, and closed with the server. `use` runs a request on it and turns whatever
 * fails into an error the downstream can be given.
 *
 * @example
 * ```ts
 * const upstream = new Upstream(() => connectStdio({ command: 'node', args: ['server.js'] }), 'my-server')
 * const { tools } = await upstream.use((client) => client.listTools())
 * await upstream.close()
 * ```
 */
export class Upstream {
  /**
   * Callers whose calls go to a connection (a process) of their own: with `isolate` each principal, and
   * callers that declared other client capabilities than this connection when the upstream lists other
   * tools to them; this one still lists the upstream's offer and follows its changes.
   */
  pool: CallerPool | undefined
  readonly #open: () => Client
  readonly #label: string
  readonly #restart: Required<RestartOptions>
  readonly #listeners = new Set<(client: Client) => void>()
  #client: Client | undefined
  #failures = 0
  #deadSince = 0
  #pending: Promise<Client> | undefined
  #closed = false

  constructor(open: () => Client, label: string, restart: RestartOptions = {}) {
    this.#open = open
    this.#label = label
    this.#restart = { ...RESTART_DEFAULTS, ...restart }
  }

  /** Calls `listener` with every new connection (the first, and each after a restart). */
  onConnect(listener: (client: Client) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  get label(): string {
    return this.#label
  }

  /** Times the upstream connection was dropped after a transport failure (crash, exit, broken pipe). */
  get restarts(): number {
    return this.#restarts
  }
  #restarts = 0

  /** The live client, started (again) if needed. */
  client(signal?: AbortSignal | (() => AbortSignal)): Promise<Client> {
    if (this.#closed) return Promise.reject(upstreamUnavailable(`${this.#label}: the proxy is closed`))
    if (this.#client) return Promise.resolve(this.#client)
    this.#pending ??= this.#start(signal).finally(() => (this.#pending = undefined))
    return this.#pending
  }

  /**
   * How long after the last death the next start waits: nothing after one death, then the initial delay,
   * doubling with each death in a row up to the maximum; a successful request starts the count again.
   */
  get restartDelayMs(): number {
    if (this.#failures <= 1) return 0
    return Math.min(this.#restart.maxDelayMs, this.#restart.initialDelayMs * 2 ** (this.#failures - 2))
  }

  async #start(signal: AbortSignal | (() => AbortSignal) | undefined): Promise<Client> {
    const wait = this.restartDelayMs - (Date.now() - this.#deadSince)
    if (wait > 0) await pause(wait, typeof signal === 'function' ? signal() : signal)
    if (this.#closed) throw upstreamUnavailable(`${this.#label}: the proxy is closed`)
    const client = this.#open()
    this.#client = client
    for (const listener of this.#listeners) listener(client)
    return client
  }

  /**
   * Runs one upstream request. Anything it throws becomes an McpError the downstream can be given: the
   * upstream's own protocol errors keep their code, everything else says plainly what went wrong.
   */
  async use<T>(work: (client: Client) => Promise<T>, signal?: AbortSignal | (() => AbortSignal)): Promise<T> {
    // Only a restart's wait needs the signal: a function makes it then, not on every request. A live
    // connection is used as it is, without a turn of the microtask queue.
    const live = this.#closed ? undefined : this.#client
    const client = live ?? (await this.client(signal))
    try {
      const result = await work(client)
      this.#failures = 0
      return result
    } catch (error) {
      throw this.#translate(error, client)
    }
  }

  /** Runs a downstream call's request: on the caller's own connection when it has one, else on this one. */
  useFor<T>(ctx: RequestContext, work: (client: Client) => Promise<T>): Promise<T> {
    const signal = (): AbortSignal => ctx.signal
    return this.pool ? this.pool.use(ctx, work, signal) : this.use(work, signal)
  }

  /** Marks `client` dead after a transport failure on stdio: its process is gone or unusable. */
  #drop(client: Client): void {
    if (this.#client !== client) return
    this.#client = undefined
    this.#failures += 1
    this.#restarts += 1
    this.#deadSince = Date.now()
    void client.close().catch(() => undefined)
  }

  #translate(error: unknown, client: Client): unknown {
    // The downstream caller cancelled: its answer is dropped anyway, so this only keeps the server's log
    // free of an "unexpected" failure.
    if (error instanceof RequestCancelledError) return internalError('Request cancelled')
    if (error instanceof McpError) {
      return upstreamError(error.code, stripControls(error.message), error.data)
    }
    if (error instanceof TransportError) {
      // On stdio a transport failure means the process is gone (or sent garbage and was cut off); over
      // HTTP the next request may well succeed, so the connection is kept.
      if (client.transport.kind === 'stdio') this.#drop(client)
      return upstreamUnavailable(`${this.#label}: ${stripControls(error.message)}`)
    }
    if (error instanceof RequestTimeoutError) {
      return upstreamUnavailable(`${this.#label} did not answer in time (${stripControls(error.message)})`)
    }
    if (error instanceof UnknownToolError) return invalidParams(stripControls(error.message))
    if (error instanceof InvalidResponseError) {
      return upstreamInvalid(`${this.#label}: ${stripControls(error.message)}`)
    }
    return upstreamUnavailable(
      `${this.#label}: ${error instanceof Error ? stripControls(error.message) : 'failed'}`,
    )
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.pool?.close()
    const client = this.#client ?? (await this.#pending?.catch(() => undefined))
    this.#client = undefined
    await client?.close()
  }
}
