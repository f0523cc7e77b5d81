/**
 * The throw-away per-request context handed to middleware and handlers. It is the only mutable object on
 * the request path; everything it reads comes from the immutable server definition or the request itself.
 */
import type { RequestId } from '../wire/jsonrpc.js'
import { LOG_LEVELS, type LogLevel } from '../wire/meta.js'
import type { RequestMeta } from '../wire/types.js'
import { type AuthInfo, type Exchange, isAborted, onAbortOf, onSignalAbort } from './exchange.js'
import { RequestInputs } from './mrtr/inputs.js'
import { keyedPrincipalOf, type OwnerKey, ownerKey, type Principal, principalOf } from './principal.js'
import type { RequestStateCodec } from './mrtr/state.js'
import { NO_TASK, type TaskControl } from './task-control.js'
import type { OperationProbe, RefusalGuard } from './telemetry.js'
import { followSignals } from '../wire/follow-signals.js'

const SEVERITY: Record<string, number> = Object.fromEntries(LOG_LEVELS.map((level, index) => [level, index]))

export type LogFn = (data: unknown, logger?: string) => void
export type RequestLogger = Record<LogLevel, LogFn>

/**
 * A limit a request runs under that can end it (a tool timeout), given to `ctx.addAbortSignal`. Unlike a
 * plain signal it can be followed by `ctx.onAbort` without making an `AbortSignal` (a proxied call follows
 * its caller's cancellation that way on every request).
 *
 * @example
 * ```ts
 * // A deadline that makes its AbortController only if the handler reads ctx.signal.
 * const listeners = new Set<() => void>()
 * let controller: AbortController | undefined
 * let reason: Error | undefined
 * setTimeout(() => {
 *   reason = new Error('too slow')
 *   controller?.abort(reason)
 *   for (const listener of listeners) listener()
 * }, 5_000)
 * ctx.addAbortSignal({
 *   signal: () => {
 *     controller ??= new AbortController()
 *     if (reason) controller.abort(reason)
 *     return controller.signal
 *   },
 *   onAbort: (listener) => {
 *     if (reason) return listener(), () => {}
 *     listeners.add(listener)
 *     return () => listeners.delete(listener)
 *   },
 * })
 * ```
 */
export interface AbortSource {
  /** The limit as a signal, made when the handler first reads `ctx.signal`. */
  signal(): AbortSignal
  /** Calls `listener` once when the limit fires (at once if it has); returns what unregisters it. */
  onAbort(listener: () => void): () => void
}

const isAbortSource = (value: unknown): value is AbortSource =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AbortSource).onAbort === 'function' &&
  typeof (value as AbortSource).signal === 'function'

/**
 * One request as a handler or middleware sees it: its method, params and `_meta`, the caller, cancellation, progress, logging and input requests.
 *
 * @example
 * ```ts
 * const timing: Middleware = async (ctx: RequestContext, next) => {
 *   const started = Date.now()
 *   try {
 *     return await next()
 *   } finally {
 *     ctx.log.debug(`${ctx.method} took ${Date.now() - started} ms`)
 *   }
 * }
 * ```
 */
export class RequestContext {
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly meta: RequestMeta
  readonly exchange: Exchange
  #state: Record<string, unknown> | undefined
  #signal: AbortSignal | undefined
  #extraSignals: (AbortSignal | (() => AbortSignal) | AbortSource)[] | undefined
  /** Undefined until the first progress: a number field would hold a boxed -Infinity on every request. */
  #lastProgress: number | undefined = undefined
  #finished = false
  #log: RequestLogger | undefined
  readonly #stateCodec: RequestStateCodec | undefined
  #input: RequestInputs | undefined
  #task: TaskControl = NO_TASK
  #principal: Principal | undefined
  #ownerKey: OwnerKey | undefined
  #timestamp: number | undefined
  /** Set by the dispatcher when telemetry is on. */
  probe: OperationProbe | undefined

  constructor(
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    meta: RequestMeta,
    exchange: Exchange,
    stateCodec?: RequestStateCodec,
  ) {
    this.id = id
    this.method = method
    this.params = params
    this.meta = meta
    this.exchange = exchange
    this.#stateCodec = stateCodec
  }

  /** A guard refused this request: telemetry counts it by guard (nothing happens when it is off). */
  refused(guard: RefusalGuard): void {
    this.probe?.refused(guard)
  }

  /** Free-form per-request storage for middleware (e.g. a rate-limit decision, a tool); made on first use. */
  get state(): Record<string, unknown> {
    return (this.#state ??= {})
  }

  /**
   * Multi-round-trip input: `await ctx.input.elicit({...})` ends this round with `input_required` and
   * returns the client's answer on the retry. Created on first use only.
   */
  get input(): RequestInputs {
    if (!this.#input) {
      if (!this.#stateCodec) throw new Error('this server was built without requestState support')
      this.#input = new RequestInputs(this, this.#stateCodec)
    }
    return this.#input
  }

  /** The task this call runs in, and `start()` to move it into one (tasks extension). */
  get task(): TaskControl {
    return this.#task
  }

  /** Set by the tasks feature before the handler runs. */
  attachTask(control: TaskControl): void {
    this.#task = control
  }

  /** Aborted when the peer cancels, or when a limit this request runs under (a tool timeout) fires. */
  get signal(): AbortSignal {
    if (this.#extraSignals) {
      // Combined on first read only: most handlers never look at their signal.
      const extra = this.#extraSignals.map((signal) =>
        typeof signal === 'function' ? signal() : isAbortSource(signal) ? signal.signal() : signal,
      )
      this.#signal = followSignals([this.#signal ?? this.exchange.signal, ...extra])
      this.#extraSignals = undefined
    }
    return this.#signal ?? this.exchange.signal
  }

  /**
   * Calls `listener` once when the request is cancelled (at once if it was) and returns what unregisters it,
   * without making `signal` when nothing else did: an open listen stream then holds no AbortController.
   */
  onAbort(listener: () => void): () => void {
    const extras = this.#extraSignals
    if (this.#signal || (extras && !extras.every(isAbortSource))) return onSignalAbort(this.signal, listener)
    if (!extras) return onAbortOf(this.exchange, listener)
    // Every limit can be followed without a signal (a tool timeout): listen to each, once for all.
    const offs: (() => void)[] = []
    let fired = false
    const once = (): void => {
      if (fired) return
      fired = true
      for (const off of offs) off()
      listener()
    }
    // A source that has fired already calls `once` while registering: then nothing more is registered.
    const follow = (on: (listener: () => void) => () => void): boolean => {
      const off = on(once)
      if (fired) off()
      else offs.push(off)
      return !fired
    }
    if (follow((l) => onAbortOf(this.exchange, l)))
      for (const source of extras as AbortSource[]) if (!follow((l) => source.onAbort(l))) break
    return () => {
      for (const off of offs) off()
    }
  }

  /**
   * Makes `signal` also abort when `extra` does (used by tool timeouts); the exchange is untouched.
   * A function, or an `AbortSource`'s signal, is made only if the handler ever reads `signal`; an
   * `AbortSource` is followed by `onAbort` without one.
   */
  addAbortSignal(extra: AbortSignal | (() => AbortSignal) | AbortSource): void {
    // Sized to what it holds: `[]` then a push would reserve room for 17.
    if (this.#extraSignals) this.#extraSignals.push(extra)
    else this.#extraSignals = [extra]
  }

  get auth(): AuthInfo | undefined {
    return this.exchange.auth
  }

  /**
   * Who this request acts for, made once from what the transport's authentication established (or, when
   * anonymous, the caller's address). Everything owned per caller is keyed by `ownerKey(ctx.principal)`.
   */
  get principal(): Principal {
    return (this.#principal ??=
      this.exchange.principal ??
      principalOf(this.exchange.auth, this.exchange.remoteAddress, this.exchange.transport))
  }

  /**
   * `ownerKey(ctx.principal)`, made once per request: the key the request's limits and everything it owns
   * are filed under.
   *
   * @example
   * ```ts
   * const notes = new Map<string, string[]>()
   * const mine = (ctx: RequestContext): string[] => notes.get(ctx.ownerKey) ?? []
   * ```
   */
  /**
   * This request's time, in milliseconds since the epoch: `Date.now()` the first time something asks, and the
   * same answer after that. The rate limits and the tool timeout a request passes through read it, so they
   * agree on when the request came, and a call reads the clock once rather than once for each.
   */
  timestamp(): number {
    return (this.#timestamp ??= Date.now())
  }

  get ownerKey(): OwnerKey {
    if (this.#ownerKey !== undefined) return this.#ownerKey
    const exchange = this.exchange
    if (this.#principal !== undefined || exchange.principal !== undefined)
      return (this.#ownerKey = ownerKey(this.principal))
    // The principal and its key come together: no second lookup for the key.
    const keyed = keyedPrincipalOf(exchange.auth, exchange.remoteAddress, exchange.transport)
    this.#principal = keyed.principal
    return (this.#ownerKey = keyed.key)
  }

  /**
   * Marks the request answered: later progress or log calls are dropped (patterns/progress §Behavior
   * Requirements).
   */
  finish(): void {
    this.#finished = true
  }

  get finished(): boolean {
    return this.#finished || isAborted(this.exchange)
  }

  /**
   * Reports progress. A no-op unless the request carried a progressToken; values that do not increase are
   * dropped, because the spec requires strictly increasing progress (patterns/progress §Behavior
   * Requirements).
   */
  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta.progressToken
    if (token === undefined || this.finished || !(progress > (this.#lastProgress ?? -Infinity))) return
    this.#lastProgress = progress
    const params: Record<string, unknown> = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.exchange.notify({ jsonrpc: '2.0', method: 'notifications/progress', params })
  }

  /**
   * Request-scoped log messages, sent only when `_meta` asked for a level (utilities/logging §Per-request log
   * level).
   */
  get log(): RequestLogger {
    if (!this.#log) {
      const threshold =
        this.meta.logLevel === undefined ? Infinity : (SEVERITY[this.meta.logLevel] ?? Infinity)
      const make =
        (level: LogLevel): LogFn =>
        (data, logger) => {
          if ((SEVERITY[level] ?? -1) < threshold || this.finished) return
          const params: Record<string, unknown> = { level, data }
          if (logger !== undefined) params.logger = logger
          this.exchange.notify({ jsonrpc: '2.0', method: 'notifications/message', params })
        }
      this.#log = Object.fromEntries(LOG_LEVELS.map((level) => [level, make(level)])) as RequestLogger
    }
    return this.#log
  }
}
