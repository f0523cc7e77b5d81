/**
 * Server-to-client requests of 2025-era peers (2025-11-25 client/elicitation, client/sampling,
 * client/roots): each waits for the client's response, which may arrive on another POST than the one whose
 * stream carried the request.
 */
import { ErrorCode, McpError } from '../wire/errors.js'
import { isRecord, type JsonRpcRequest } from '../wire/jsonrpc.js'

interface Waiting {
  /** What was asked, named in the error when the client refuses it. */
  readonly method: string
  resolve(result: unknown): void
  reject(error: unknown): void
}

export class ClientRequests {
  readonly #waiting = new Map<string, Waiting>()
  /**
   * Prefix of this instance's request ids, so ids stay unique when several instances ask one client. Drawn
   * with the first request, not at construction: Workers refuse random numbers in global scope, where a
   * server is usually defined.
   */
  #instance: string | undefined
  #nextId = 0

  /**
   * Sends a request through `send` and resolves with the client's result (rejects with its error, or
   * when `signal` aborts). `peerKey` names the peer (session id or stdio connection).
   */
  ask(
    peerKey: string,
    send: (message: JsonRpcRequest) => void,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason)
    this.#instance ??= crypto.randomUUID().slice(0, 8)
    const id = `${this.#instance}.${++this.#nextId}`
    const key = `${peerKey}\u0000${id}`
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting.delete(key)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const settle =
        (fn: (value: unknown) => void) =>
        (value: unknown): void => {
          signal.removeEventListener('abort', onAbort)
          this.#waiting.delete(key)
          fn(value)
        }
      this.#waiting.set(key, { method, resolve: settle(resolve), reject: settle(reject) })
      send({ jsonrpc: '2.0', id, method, params: isRecord(params) ? params : {} })
    })
  }

  /** Settles the request a response answers; false when nothing here waits for it. */
  settle(peerKey: string, response: Readonly<Record<string, unknown>>): boolean {
    const id = response.id
    if (typeof id !== 'string' && typeof id !== 'number') return false
    const waiting = this.#waiting.get(`${peerKey}\u0000${String(id)}`)
    if (!waiting) return false
    const error = response.error
    if (isRecord(error)) {
      const code = typeof error.code === 'number' ? error.code : ErrorCode.InternalError
      const message = typeof error.message === 'string' ? error.message : 'unknown error'
      // The method is named: behind a proxy this reaches a caller that never saw the question.
      waiting.reject(new McpError(code, `The client refused ${waiting.method}: ${message}`, error.data))
    } else waiting.resolve(response.result)
    return true
  }
}
