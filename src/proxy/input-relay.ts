/**
 * What an upstream asks during a call (elicitation, sampling, roots) is asked of the downstream caller in
 * turn, in the downstream's era: on a 2025-era session it is a server-to-client request on that session
 * (2025-11-25 client/elicitation, client/sampling, client/roots) and the upstream call waits for the answer;
 * on 2026-07-28 it ends the downstream round with `input_required` (patterns/mrtr). The upstream call is
 * then cancelled, and the client's retry runs it again, answering each question the upstream asks again
 * from the answers the retry carries (sealed in `requestState`, so any instance can serve the retry). An
 * upstream that does something before it asks does it again on each round: the price of a proxy that holds
 * no state between rounds.
 */
import { type Cancellation, LazyAbort } from '../client/cancellation.js'
import type { InputContext, InputHandlers } from '../client/input.js'
import type { RequestContext } from '../protocol/context.js'
import { InputRequired } from '../protocol/mrtr/inputs.js'
import { ErrorCode, internalError, McpError } from '../wire/errors.js'
import type { InputRequest, ListRootsResult } from '../wire/types.js'

/**
 * Why the caller could not answer the upstream's `method`, as the error the upstream is answered with (and,
 * through the upstream, what the caller reads): it names the question and the reason. A capability the
 * caller did not declare keeps -32021 and its `requiredCapabilities` (a 2025-era upstream hears -32601,
 * client/legacy.ts); the caller's own refusal, or an answer the proxy refused, keeps its code.
 */
function refusal(method: string, error: unknown): unknown {
  if (error instanceof McpError && error.code === ErrorCode.MissingRequiredClientCapability) {
    const data = error.data as { requiredCapabilities?: Record<string, unknown> } | undefined
    const needed = Object.keys(data?.requiredCapabilities ?? {}).join(', ') || 'the capability'
    return new McpError(
      error.code,
      `The caller cannot be asked ${method}: it did not declare ${needed}`,
      error.data,
    )
  }
  if (error instanceof McpError) return error
  const reason = error instanceof Error ? error.message : String(error)
  return internalError(`The caller could not answer ${method}: ${reason}`)
}

export class InputRelay {
  readonly handlers: InputHandlers
  /**
   * What cancels the upstream call: the caller's cancellation (or its tool timeout), or the end of this
   * round. No AbortSignal is made unless something reads `signal`.
   */
  readonly cancellation: Cancellation
  readonly #ctx: RequestContext
  readonly #ended = new LazyAbort()
  readonly #unfollow: () => void
  #pending: InputRequired | undefined
  #asked = 0

  constructor(ctx: RequestContext) {
    this.#ctx = ctx
    this.cancellation = this.#ended
    // The caller's side is followed by listener, so the request makes no signal of its own unless it is
    // cancelled (then `ctx.signal` gives the reason).
    this.#unfollow = ctx.onAbort(() => this.#ended.abort(ctx.signal.reason))
    const ask = <R>(method: string, params: unknown, context: InputContext): Promise<R> =>
      this.#ask<R>({ method, params } as InputRequest, context)
    this.handlers = {
      elicitation: (params, context) => ask('elicitation/create', params, context),
      sampling: (params, context) => ask('sampling/createMessage', params, context),
      roots: async (context) => (await ask<ListRootsResult>('roots/list', undefined, context)).roots,
    }
  }

  /** The same as an AbortSignal, for requests that take only a signal (made on first read). */
  get signal(): AbortSignal {
    return this.#ended.signal
  }

  /**
   * The questions are keyed by their order in the upstream call, which is the same on every round for an
   * upstream that asks the same things (the upstream's own key is not enough: a 2025-era server's requests
   * have none).
   */
  async #ask<R>(request: InputRequest, context: InputContext): Promise<R> {
    const key = `${++this.#asked}-${context.key}`
    const asked = request.params === undefined ? { method: request.method } : request
    try {
      const answers = await this.#ctx.input.ask({ [key]: asked as InputRequest })
      return answers[key] as R
    } catch (error) {
      if (error instanceof InputRequired) {
        this.#pending ??= error
        this.#ended.abort(error)
        throw error
      }
      // A cancelled caller's call ends anyway: its reason is left as it is.
      throw this.#ctx.signal.aborted ? error : refusal(request.method, error)
    }
  }

  /**
   * After the upstream call ends (or fails): when a question ended the round, the downstream answer is
   * `input_required` whatever became of the cancelled upstream call.
   */
  settle(): void {
    if (this.#pending) throw this.#pending
  }

  /** Runs one upstream call with this relay, ending the round when a question needs the caller. */
  async run<T>(call: (relay: InputRelay) => Promise<T>): Promise<T> {
    let result: T
    try {
      result = await call(this)
    } catch (error) {
      this.settle()
      throw error
    } finally {
      this.#unfollow()
    }
    this.settle()
    return result
  }
}
