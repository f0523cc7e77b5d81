/**
 * The request engine every client method goes through: fresh ids, the `_meta` envelope (basic/index §_meta),
 * version negotiation on -32022 (versioning §Protocol Version Negotiation), timeouts and cancellation
 * (patterns/cancellation §Timeouts), typed errors, and `resultType` checks (basic/index §ResultType: absent
 * means complete, unknown is invalid).
 */
import { isRecord, type JsonRpcNotification, type JsonRpcResponse } from '../wire/jsonrpc.js'
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
  SUPPORTED_VERSIONS,
} from '../wire/meta.js'
import type { ClientCapabilities, Implementation } from '../wire/types.js'
import {
  InvalidResponseError,
  protocolError,
  RequestCancelledError,
  RequestTimeoutError,
  VersionMismatchError,
} from './errors.js'
import type { CallBudget } from './budget.js'
import { type Cancellation, LazyAbort } from './cancellation.js'
import type { ClientTransport, SendOptions } from './transport.js'
import { ErrorCode } from '../wire/errors.js'
import { type Deadline, Deadlines } from '../wire/deadlines.js'
import type { ClientTelemetry, PrepareMessage } from './telemetry.js'

export interface CallOptions {
  /** Cancels the request. */
  readonly signal?: AbortSignal
  /**
   * Cancels the request like `signal`, without an AbortSignal (cancellation.ts): how toolwire's proxy
   * follows its caller on every call it relays, where making a signal per call would be most of its cost.
   */
  readonly cancellation?: Cancellation
  /** Gives up and cancels after this long (default: the client's `timeoutMs`). */
  readonly timeoutMs?: number
  /** Extra `_meta` entries (e.g. trace context). */
  readonly meta?: Readonly<Record<string, unknown>>
  /** Extra HTTP headers. */
  readonly headers?: Readonly<Record<string, string>>
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /** The HTTP status of the answer (era detection). */
  readonly onStatus?: (status: number) => void
  /**
   * Each progress notification restarts the timeout (patterns/cancellation §Timeouts); `maxTotalTimeoutMs`
   * still applies.
   */
  readonly resetTimeoutOnProgress?: boolean
  /** Hard limit for the whole request when the timeout is reset by progress (default 10 × `timeoutMs`). */
  readonly maxTotalTimeoutMs?: number
  /** The budget of the call this request belongs to: server requests it causes are counted against it. */
  readonly budget?: CallBudget
}

export interface SessionOptions {
  readonly clientInfo: Implementation | undefined
  readonly capabilities: ClientCapabilities
  readonly protocolVersion: string
  readonly timeoutMs: number
  /** Spans, metrics and trace context for every request (`connect(…, { telemetry })`). */
  readonly telemetry?: ClientTelemetry | undefined
}

/** Result types this client understands (no extensions negotiated). */
const RESULT_TYPES = new Set(['complete', 'input_required'])

/** Every session's request timeouts, in one set of lists with a timer per duration (wire/deadlines.ts). */
const REQUEST_DEADLINES = new Deadlines()

/** With `resetTimeoutOnProgress` and no `maxTotalTimeoutMs`, a call may last at most this many timeouts. */
export const DEFAULT_TOTAL_FACTOR = 10

let sequence = 0

export class Session {
  readonly transport: ClientTransport
  readonly options: SessionOptions
  /** The version requests are sent with; changes once if the server asks for another one. */
  version: string
  /**
   * Set once `initialize` chose a 2025-era revision: requests then carry no 2026-07-28 `_meta` envelope
   * (the session holds what it said), and a cancelled HTTP request is announced with `notifications/cancelled`.
   */
  legacy = false
  readonly #prefix = `${Date.now().toString(36)}-${(++sequence).toString(36)}`
  #nextId = 1
  /**
   * Told when a request to a 2025-era server ends (answered, failed or cancelled): the server's own requests
   * that its stream carried are then past use.
   */
  onLegacyRequestEnd: ((id: number) => void) | undefined = undefined
  /** The budget of each request in flight that belongs to a budgeted call, by request id. */
  readonly #budgets = new Map<number, CallBudget>()

  constructor(transport: ClientTransport, options: SessionOptions) {
    this.transport = transport
    this.options = options
    this.version = options.protocolVersion
  }

  /**
   * A request id no other request of this client has used (basic/index §Requests; patterns/mrtr: a retry
   * takes a new id).
   */
  nextId(): number {
    return this.#nextId++
  }

  /** A progress token unique across this process's active requests (patterns/progress). */
  nextToken(): string {
    return `${this.#prefix}-${this.#nextId++}`
  }

  /** The budget of the call a request in flight belongs to (a server request names it as its origin). */
  budgetOf(id: unknown): CallBudget | undefined {
    return typeof id === 'number' ? this.#budgets.get(id) : undefined
  }

  /** The budgets of every call with a request in flight (a server request that names no origin may be any). */
  activeBudgets(): Set<CallBudget> {
    return new Set(this.#budgets.values())
  }

  meta(extra?: Readonly<Record<string, unknown>>): Record<string, unknown> {
    if (this.legacy) return { ...extra }
    const meta: Record<string, unknown> = extra
      ? {
          ...extra,
          [META_PROTOCOL_VERSION]: this.version,
          [META_CLIENT_CAPABILITIES]: this.options.capabilities,
        }
      : { [META_PROTOCOL_VERSION]: this.version, [META_CLIENT_CAPABILITIES]: this.options.capabilities }
    if (this.options.clientInfo) meta[META_CLIENT_INFO] = this.options.clientInfo
    return meta
  }

  /**
   * Sends a request and returns its result. Protocol errors throw `ProtocolError`; a -32022 naming a
   * version both sides support is retried once with that version.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    // The answer's HTTP status, for the ProtocolError (a holder, not a closure and an options copy per call).
    const status: { value?: number } = {}
    for (let attempt = 0; ; attempt++) {
      const response = await this.#send(method, params, options, status)
      if ('result' in response) return checkResult(response.result, method)
      const { code, message, data } = response.error
      if (code === ErrorCode.UnsupportedProtocolVersion && attempt === 0 && !this.legacy) {
        const offered = isRecord(data) && Array.isArray(data.supported) ? data.supported.map(String) : []
        const shared = SUPPORTED_VERSIONS.find((version) => offered.includes(version))
        // Retry once with the shared version, even the one just sent: the server says it speaks it.
        if (shared !== undefined) {
          this.version = shared
          continue
        }
        if (shared === undefined) throw new VersionMismatchError(SUPPORTED_VERSIONS, offered, message)
      }
      throw protocolError(code, message, data, status.value)
    }
  }

  /** One exchange: builds the message with a fresh id and `_meta`, applies timeout and cancellation. */
  send(method: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<JsonRpcResponse> {
    return this.#send(method, params, options, undefined)
  }

  // Not `async`: it hands back the exchange's own promise, and wrapping it would cost the call two more
  // microtask turns on the way back (both callees are async, so nothing here throws synchronously).
  #send(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    status: { value?: number } | undefined,
  ): Promise<JsonRpcResponse> {
    const telemetry = this.options.telemetry
    if (telemetry === undefined) return this.#exchange(method, params, options, status, undefined)
    return telemetry.observe(
      method,
      params,
      this.version,
      (prepare) => this.#exchange(method, params, options, status, prepare),
      options.budget,
    )
  }

  async #exchange(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    status: { value?: number } | undefined,
    prepare: PrepareMessage | undefined,
  ): Promise<JsonRpcResponse> {
    // One cancellation per exchange, aborted by the timeout(s) or the caller's signal. (No AbortSignal.any:
    // it keeps listeners on a long-lived caller signal alive.)
    const controller = new LazyAbort()
    let expired: RequestTimeoutError | undefined
    const expire = (ms: number): void => {
      expired ??= new RequestTimeoutError(ms)
      controller.abort(expired)
    }
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs
    const limited = Number.isFinite(timeoutMs) && timeoutMs > 0
    // A deadline in the shared lists, not a timer per call (none without a limit); progress re-arms it.
    const arm = (): Deadline => REQUEST_DEADLINES.start(timeoutMs, () => expire(timeoutMs))
    let deadline = limited ? arm() : undefined
    // Progress may reset the timeout forever; a ceiling still bounds the whole call (default 10 × timeoutMs).
    const total =
      options.maxTotalTimeoutMs ??
      (options.resetTimeoutOnProgress && limited ? timeoutMs * DEFAULT_TOTAL_FACTOR : undefined)
    const totalHandle = total !== undefined && total > 0 ? setTimeout(expire, total, total) : undefined
    const caller = options.signal
    const onCancel = caller && ((): void => controller.abort(caller.reason))
    if (caller?.aborted) onCancel?.()
    else if (onCancel) caller?.addEventListener('abort', onCancel, { once: true })
    const relayed = options.cancellation
    const unfollow = relayed?.onAbort(() => controller.abort(relayed.reason))
    const forward = options.onNotification
    const onNotification =
      options.resetTimeoutOnProgress && forward
        ? (notification: JsonRpcNotification): void => {
            if (notification.method === 'notifications/progress' && !controller.aborted) {
              deadline?.cancel()
              if (limited) deadline = arm()
            }
            forward(notification)
          }
        : forward
    const extraMeta = options.meta
    const ownMeta = params._meta as object | undefined
    const meta = this.meta(extraMeta || ownMeta ? { ...extraMeta, ...ownMeta } : undefined)
    const message = {
      jsonrpc: '2.0' as const,
      id: this.nextId(),
      method,
      params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params,
    }
    if (prepare) {
      // Trace context joins `_meta` in both eras (a 2025-era request carries `_meta` too).
      prepare(meta, message.id)
      if (Object.keys(meta).length > 0) message.params = { ...params, _meta: meta }
    }
    const sendOptions = new ExchangeOptions(controller, options.onStatus, status)
    if (options.headers) sendOptions.headers = options.headers
    if (onNotification) sendOptions.onNotification = onNotification
    // Only a 2025-era server sends requests that name a call: no bookkeeping on the 2026-07-28 hot path.
    const budget = this.legacy ? options.budget : undefined
    if (budget) this.#budgets.set(message.id, budget)
    try {
      return await this.transport.request(message, sendOptions)
    } catch (error) {
      // 2025-11-25 basic/transports §Sending Messages to the Server: a disconnect is not a cancellation
      // there, so a legacy HTTP server is told (stdio sends it in the transport).
      if (controller.aborted && this.legacy && this.transport.kind === 'http') {
        const cancelled = { requestId: message.id, reason: String(controller.reason) }
        void this.transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: cancelled })
          .catch(() => undefined)
      }
      if (expired) throw expired
      const cancelledBy = caller?.aborted ? caller : relayed?.aborted ? relayed : undefined
      if (cancelledBy) {
        const reason: unknown = cancelledBy.reason
        throw reason instanceof Error && reason.name !== 'AbortError'
          ? reason
          : new RequestCancelledError(reason)
      }
      throw error
    } finally {
      if (budget) this.#budgets.delete(message.id)
      if (this.legacy) this.onLegacyRequestEnd?.(message.id)
      deadline?.cancel()
      if (totalHandle) clearTimeout(totalHandle)
      if (onCancel) caller?.removeEventListener('abort', onCancel)
      unfollow?.()
    }
  }
}

/**
 * What one exchange hands its transport, as a class: no accessor, closure or spread per call. A real
 * AbortSignal is made only for a transport that asks for one.
 */
class ExchangeOptions implements SendOptions {
  readonly cancellation: LazyAbort
  headers?: Readonly<Record<string, string>>
  onNotification?: (notification: JsonRpcNotification) => void
  readonly #forwardStatus: ((status: number) => void) | undefined
  readonly #status: { value?: number } | undefined

  constructor(
    cancellation: LazyAbort,
    forwardStatus: ((status: number) => void) | undefined,
    status: { value?: number } | undefined,
  ) {
    this.cancellation = cancellation
    this.#forwardStatus = forwardStatus
    this.#status = status
  }

  get signal(): AbortSignal {
    return this.cancellation.signal
  }

  onStatus(status: number): void {
    if (this.#status) this.#status.value = status
    this.#forwardStatus?.(status)
  }
}

/** A missing `resultType` is `complete` (legacy servers); an unknown one is invalid. */
export function checkResult(result: unknown, method: string): Record<string, unknown> {
  if (!isRecord(result)) throw new InvalidResponseError(`${method}: the result is not an object`)
  const type = result.resultType
  // A task handle answers only tools/call (extensions/tasks §Supported Methods).
  const taskOk = type === 'task' && method === 'tools/call'
  if (type !== undefined && !taskOk && (typeof type !== 'string' || !RESULT_TYPES.has(type))) {
    throw new InvalidResponseError(`${method}: unknown resultType ${JSON.stringify(type)}`)
  }
  return result
}

export { PROTOCOL_VERSION }
