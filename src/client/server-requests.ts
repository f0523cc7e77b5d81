/**
 * Requests a 2025-era server sends the client (2025-11-25 client/sampling, client/elicitation, client/roots)
 * pass one gate: a few may be answered at a time, and each call admits at most its budget's
 * `maxServerRequests`; the rest get a JSON-RPC error at once. A hostile server could otherwise start any
 * number of handlers (each maybe a model call or a process) for one call (basic/security_best_practices).
 *
 * A handler's signal aborts when its answer can no longer matter: the request whose stream carried the
 * server's request has ended (on HTTP the server's handler is done, 2025-11-25 basic/transports §Sending
 * Messages to the Server: such requests relate to the originating client request), the client is closed, or
 * the session's `timeoutMs` has passed. So a sampling command or a prompt still queued when a call ends is
 * dropped instead of keeping the application (a CLI) alive.
 */
import { ErrorCode } from '../wire/errors.js'
import { isRecord, type JsonRpcRequest } from '../wire/jsonrpc.js'
import type { CallBudget } from './budget.js'
import type { InputHandlers } from './input.js'
import { answerServerRequest } from './legacy.js'
import type { Session } from './session.js'

/** The `_meta` key naming the task a message belongs to (2025-11-25 basic/utilities/tasks §Related Task Metadata). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task'

/** A proxy's answer to a `roots/list` no caller is asked for: no roots shared yet. */
const NO_CALLER_ROOTS: InputHandlers = { roots: [] }

/** Server requests answered at once, unless the client says otherwise. */
export const DEFAULT_CONCURRENT_SERVER_REQUESTS = 4

export class ServerRequestGate {
  readonly #session: Session
  readonly #handlers: InputHandlers
  readonly #maxInFlight: number
  readonly #rootsFromCall: boolean
  #inFlight = 0
  /** Each request being answered: its cancellation and the id of the client request that carried it. */
  readonly #answering = new Map<AbortController, number | string | undefined>()

  constructor(session: Session, handlers: InputHandlers, maxInFlight: number, rootsFromCall = false) {
    this.#session = session
    this.#handlers = handlers
    this.#maxInFlight = maxInFlight
    this.#rootsFromCall = rootsFromCall
  }

  /** Answers the request, or refuses it when too many are in flight or its call's budget is spent. */
  receive(request: JsonRpcRequest, origin: JsonRpcRequest | undefined): void {
    if (request.method === 'ping') {
      void answerServerRequest(this.#session, request, origin, this.#handlers)
      return
    }
    const refusal = this.#admit(request, origin)
    if (refusal !== undefined) {
      const error = { code: ErrorCode.InvalidRequest, message: refusal }
      void this.#session.transport.send({ jsonrpc: '2.0', id: request.id, error }).catch(() => undefined)
      return
    }
    this.#inFlight++
    const controller = new AbortController()
    this.#answering.set(controller, origin?.id)
    const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(this.#session.options.timeoutMs)])
    const handlers = this.#handlersFor(request, origin)
    void answerServerRequest(this.#session, request, origin, handlers, signal).finally(() => {
      this.#inFlight--
      this.#answering.delete(controller)
    })
  }

  /** The client request `id` ended: the server requests its stream carried are cancelled. */
  originEnded(id: number): void {
    if (this.#answering.size === 0) return
    for (const [controller, origin] of this.#answering) {
      if (origin === id) controller.abort(new Error(`the request that carried it (id ${id}) has ended`))
    }
  }

  /** The client is closing: every server request still being answered is cancelled. */
  close(): void {
    for (const controller of this.#answering.keys()) controller.abort(new Error('the client was closed'))
  }

  /**
   * The handlers of the call that asked: the one the request names, or (stdio names none) the only call in
   * flight that has handlers of its own. When that is unclear, the client's handlers answer. So does a
   * `roots/list` that names no call: roots belong to the session (2025-11-25 client/roots), and a server
   * asks for them on its own, e.g. right after `initialize`; one call's caller must not set them for all.
   * A proxy (`rootsFromCall`) relays them from its caller like any other question; when no one caller is
   * being served (the upstream asks at start, before any caller exists, or while several calls are in
   * flight) and the client has no roots of its own, it answers an empty list: nobody has shared a root, and
   * an error would read as a broken client (server-filesystem logs "Failed to request initial roots").
   */
  #handlersFor(request: JsonRpcRequest, origin: JsonRpcRequest | undefined): InputHandlers {
    if (origin) return this.#session.budgetOf(origin.id)?.handlers ?? this.#handlers
    const waiting = this.#waitingOn(request)
    if (waiting) return waiting.handlers ?? this.#handlers
    const roots = request.method === 'roots/list'
    if (roots && !this.#rootsFromCall) return this.#handlers
    const own = new Set<InputHandlers>()
    for (const budget of this.#session.activeBudgets()) if (budget.handlers) own.add(budget.handlers)
    const [only] = own
    if (own.size === 1 && only) return only
    return roots && !this.#handlers.roots ? NO_CALLER_ROOTS : this.#handlers
  }

  /**
   * The call waiting on the task a request names (2025-11-25 basic/utilities/tasks: a server's requests
   * for a task carry `io.modelcontextprotocol/related-task`), when one is.
   */
  #waitingOn(request: JsonRpcRequest): CallBudget | undefined {
    const meta = request.params?._meta
    const related = isRecord(meta) ? meta[RELATED_TASK] : undefined
    const taskId = isRecord(related) ? related.taskId : undefined
    if (typeof taskId !== 'string') return undefined
    for (const budget of this.#session.activeBudgets()) if (budget.relatedTask === taskId) return budget
    return undefined
  }

  #admit(request: JsonRpcRequest, origin: JsonRpcRequest | undefined): string | undefined {
    if (this.#inFlight >= this.#maxInFlight)
      return `too many requests from the server at once (this client answers ${this.#maxInFlight} at a time)`
    // The call the request names (HTTP: the POST whose stream carried it); stdio and the session's GET
    // stream name none, so every call in flight counts it.
    const owner = origin ? this.#session.budgetOf(origin.id) : this.#waitingOn(request)
    const budgets: Iterable<CallBudget> = owner ? [owner] : this.#session.activeBudgets()
    for (const budget of budgets) {
      if (!budget.admitServerRequest())
        return `${budget.what}: the server sent more than ${budget.limits.maxServerRequests} requests during this call`
    }
    return undefined
  }
}
