/**
 * Questions a server asks during a request (elicitation, sampling) wait here for the person at the page:
 * each is announced as an event and settled by the page's answer, or dropped when the request that asked is
 * cancelled. Nothing is answered on the user's behalf (client/elicitation §User Interaction Model, client/
 * sampling §User Interaction Model: a human stays in the loop).
 */
import { getMaxListeners, setMaxListeners } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { InputContext } from '../../client/input.js'

/** Questions that may wait at once; one more is declined (docs/security.md, Guard table). */
export const MAX_PENDING_INPUTS = 16

export interface PendingInput {
  readonly id: string
  readonly kind: 'elicitation' | 'sampling'
  readonly params: unknown
  readonly context: { method: string; name?: string | undefined }
}

interface Waiter {
  readonly input: PendingInput
  resolve(answer: unknown): void
  reject(error: Error): void
}

export class InputBroker {
  readonly #waiting = new Map<string, Waiter>()
  readonly #announce: (event: { type: string } & Record<string, unknown>) => void

  constructor(announce: (event: { type: string } & Record<string, unknown>) => void) {
    this.#announce = announce
  }

  pending(): PendingInput[] {
    return [...this.#waiting.values()].map((waiter) => waiter.input)
  }

  ask(kind: PendingInput['kind'], params: unknown, context: InputContext): Promise<unknown> {
    if (this.#waiting.size >= MAX_PENDING_INPUTS) {
      return Promise.reject(new Error(`more than ${MAX_PENDING_INPUTS} questions are waiting for an answer`))
    }
    const input: PendingInput = {
      id: randomUUID(),
      kind,
      params,
      context: { method: context.method, name: context.name },
    }
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.#waiting.delete(input.id)
        context.signal.removeEventListener('abort', abort)
        this.#announce({ type: 'input-done', id: input.id })
      }
      const abort = (): void => {
        done()
        reject(new Error('the request that asked was cancelled'))
      }
      if (context.signal.aborted) return abort()
      // One request may ask up to MAX_PENDING_INPUTS questions at once (an input_required round with several
      // requests), each listening on its signal: that many listeners are expected, not a leak to warn about.
      if (getMaxListeners(context.signal) < MAX_PENDING_INPUTS + 1)
        setMaxListeners(MAX_PENDING_INPUTS + 1, context.signal)
      context.signal.addEventListener('abort', abort, { once: true })
      this.#waiting.set(input.id, {
        input,
        resolve: (answer) => (done(), resolve(answer)),
        reject: (error) => (done(), reject(error)),
      })
      this.#announce({ type: 'input', input })
    })
  }

  /** The page's answer; false when the question is no longer waiting. */
  answer(id: string, answer: unknown): boolean {
    const waiter = this.#waiting.get(id)
    if (!waiter) return false
    if (waiter.input.kind === 'sampling' && isRefusal(answer)) waiter.reject(new Error('the user declined'))
    else waiter.resolve(answer)
    return true
  }

  /** Drops every question, e.g. when the server is reloaded. */
  clear(reason: string): void {
    for (const waiter of [...this.#waiting.values()]) waiter.reject(new Error(reason))
  }
}

const isRefusal = (answer: unknown): boolean =>
  typeof answer === 'object' && answer !== null && (answer as { declined?: unknown }).declined === true
