/**
 * The questions of a 2025-era upstream's tasks. Such a server does not list them in tasks/get: it asks them
 * as its own requests (elicitation, sampling, roots) on a tasks/result request the client keeps open while
 * the task is `input_required` (2025-11-25 basic/utilities/tasks §Input Required Status). So the proxy holds
 * one tasks/result open per such task and keeps each question it brings until the downstream caller answers
 * it with tasks/update. When the request returns, the hold ends: the task's outcome is asked for again once
 * tasks/get says it has ended (tasks/result answers the same while the upstream keeps the task), so nothing
 * is kept for a caller that never looks again.
 *
 * This is the one piece of a relayed task that lives in memory: the held request belongs to this instance's
 * connection, so relayName gives such an upstream a per-instance name (another instance reads the task as
 * unknown). It is bounded. At most `maxHeld` tasks are held at once, and `maxPerPrincipal` of one
 * principal's, so one caller cannot take every slot. A task past a bound reads as working, its question
 * left waiting upstream, until a held one ends (letting a held one go instead would throw away a question
 * someone may be answering). Each held request ends with the task's ttl, and the questions one request may
 * bring are counted by the client's budget for it (`maxServerRequests`).
 */
import type { Client } from '../client/client.js'
import type { InputHandlers } from '../client/input.js'
import type { InputRequest, ListRootsResult } from '../wire/types.js'

/** Tasks held at once, per upstream, unless configured. */
export const DEFAULT_MAX_HELD_TASKS = 256
/** Tasks one principal's callers may have held at once, per upstream, unless configured. */
export const DEFAULT_MAX_HELD_TASKS_PER_PRINCIPAL = 32

/** The longest a held tasks/result stays open (a task without a ttl, or a longer one). */
const MAX_HOLD_MS = 3_600_000

/**
 * Numbers the questions of every hold: a task held again (its request timed out, or its upstream restarted)
 * asks under new keys, never under one its caller has answered already.
 */
let asked = 0

interface Question {
  readonly request: InputRequest
  answer(value: unknown): void
}

class Hold {
  readonly questions = new Map<string, Question>()
  readonly stop = new AbortController()

  /** `onEnd`: the request has returned, failed or been let go. */
  constructor(client: Client, taskId: string, holdMs: number, onEnd: () => void) {
    const handlers: InputHandlers = {
      elicitation: (params) => this.#ask('elicitation/create', params),
      sampling: (params) => this.#ask('sampling/createMessage', params),
      roots: async () => (await this.#ask<ListRootsResult>('roots/list', undefined)).roots,
    }
    const ended = (): void => {
      this.stop.abort()
      onEnd()
    }
    client
      .request('tasks/result', { taskId }, { handlers, signal: this.stop.signal, timeoutMs: holdMs })
      .then(ended, ended)
  }

  /** Keeps a question until it is answered; the hold ending refuses it. */
  #ask<R>(method: InputRequest['method'], params: unknown): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.stop.signal.aborted) return reject(new Error('the task is no longer held'))
      const key = `q${++asked}`
      const request = (params === undefined ? { method } : { method, params }) as InputRequest
      const refuse = (): void => {
        this.questions.delete(key)
        reject(new Error('the task is no longer held'))
      }
      this.stop.signal.addEventListener('abort', refuse, { once: true })
      this.questions.set(key, {
        request,
        answer: (value) => {
          this.stop.signal.removeEventListener('abort', refuse)
          this.questions.delete(key)
          resolve(value as R)
        },
      })
    })
  }
}

export class LegacyTaskQuestions {
  readonly #held = new Map<string, { hold: Hold; owner: string }>()
  /** Tasks held per owner key: one caller cannot take every slot. */
  readonly #byOwner = new Map<string, number>()
  readonly #maxHeld: number
  readonly #maxPerPrincipal: number

  constructor(maxHeld = DEFAULT_MAX_HELD_TASKS, maxPerPrincipal = DEFAULT_MAX_HELD_TASKS_PER_PRINCIPAL) {
    if (!Number.isInteger(maxHeld) || maxHeld < 1)
      throw new TypeError('maxHeldTasks must be a positive integer')
    if (!Number.isInteger(maxPerPrincipal) || maxPerPrincipal < 1)
      throw new TypeError('maxHeldTasksPerPrincipal must be a positive integer')
    this.#maxHeld = maxHeld
    this.#maxPerPrincipal = maxPerPrincipal
  }

  /**
   * Holds tasks/result open for the task `key` names (if not yet), filed under its `owner` (the whole
   * principal's owner key), and returns its open questions; undefined when `maxHeld` tasks, or
   * `maxPerPrincipal` of this owner's, are held already.
   */
  hold(
    key: string,
    owner: string,
    client: Client,
    taskId: string,
    ttlMs: number | null,
  ): Record<string, InputRequest> | undefined {
    let entry = this.#held.get(key)
    if (!entry) {
      if (this.#held.size >= this.#maxHeld) return undefined
      if ((this.#byOwner.get(owner) ?? 0) >= this.#maxPerPrincipal) return undefined
      const holdMs = ttlMs !== null && ttlMs > 0 ? Math.min(ttlMs, MAX_HOLD_MS) : MAX_HOLD_MS
      const made = { hold: new Hold(client, taskId, holdMs, () => this.#forget(key, made)), owner }
      entry = made
      this.#held.set(key, made)
      this.#byOwner.set(owner, (this.#byOwner.get(owner) ?? 0) + 1)
    }
    const questions: Record<string, InputRequest> = {}
    for (const [id, question] of entry.hold.questions) questions[id] = question.request
    return questions
  }

  /** Answers the open questions `answers` names; others are ignored. */
  answer(key: string, answers: Record<string, unknown>): void {
    const entry = this.#held.get(key)
    if (!entry) return
    for (const [id, value] of Object.entries(answers)) entry.hold.questions.get(id)?.answer(value)
  }

  /** Lets the task go: its request is cancelled and its open questions refused. */
  release(key: string): void {
    const entry = this.#held.get(key)
    if (!entry) return
    this.#forget(key, entry)
    entry.hold.stop.abort()
  }

  #forget(key: string, entry: { hold: Hold; owner: string }): void {
    if (this.#held.get(key) !== entry) return
    this.#held.delete(key)
    const left = (this.#byOwner.get(entry.owner) ?? 1) - 1
    if (left > 0) this.#byOwner.set(entry.owner, left)
    else this.#byOwner.delete(entry.owner)
  }
}
