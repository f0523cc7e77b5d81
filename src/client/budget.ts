/**
 * One budget per client call. A server is untrusted (basic/security_best_practices; server/tools §Security
 * Considerations), so every loop a call runs on the server's say-so draws from one object: polls of a task,
 * input rounds and the questions in them, list pages and items, and requests the server sends back while the
 * call is open. Whatever the server answers, the call ends within these limits with a `BudgetExceededError`
 * (or a `RequestTimeoutError` once its time is spent).
 */
import { RequestTimeoutError } from './errors.js'
import type { InputHandlers } from './input.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

/** The limits of one call; each has a default (`DEFAULT_BUDGET`) and can be set per client. */
export interface BudgetLimits {
  /** Requests one call may answer with input (MRTR `input_required` results and task questions alike). */
  readonly maxInputRounds: number
  /** Questions (elicitation, sampling, roots) one call answers in all its rounds. */
  readonly maxInputRequests: number
  /** `tasks/get` polls one task wait may send. */
  readonly maxPolls: number
  /** The shortest pause between polls, whatever `pollIntervalMs` the server suggests. */
  readonly minPollIntervalMs: number
  /** Pages one listing may fetch. */
  readonly maxPages: number
  /** Items one listing may collect over all its pages. */
  readonly maxItems: number
  /** Requests a 2025-era server may send the client during one call (sampling, elicitation, roots). */
  readonly maxServerRequests: number
}

/**
 * The per-call limits a client applies unless `ClientOptions.budget` says otherwise.
 *
 * @example
 * ```ts
 * const client = connect(
 *   { url: 'https://mcp.example.com/mcp' },
 *   { budget: { maxPages: DEFAULT_BUDGET.maxPages * 2 } },
 * )
 * ```
 */
export const DEFAULT_BUDGET: BudgetLimits = Object.freeze({
  maxInputRounds: 10,
  maxInputRequests: 50,
  maxPolls: 1_000,
  minPollIntervalMs: 100,
  maxPages: 100,
  maxItems: 10_000,
  maxServerRequests: 32,
})

/**
 * How long a call that gave up waits for its `tasks/cancel` to be acknowledged, so a process that exits
 * next (the CLI) still stops the task; a server that never answers delays the error by at most this much.
 */
export const CANCEL_WAIT_MS = 5_000

/** Timers may fire a little before the deadline as `Date.now()` sees it. */
const DEADLINE_SLACK_MS = 10

export type BudgetLimit = Exclude<keyof BudgetLimits, 'minPollIntervalMs'>

/**
 * A call drew more from its budget than the limits allow; the call was stopped.
 *
 * @example
 * ```ts
 * try {
 *   await client.listTools()
 * } catch (error) {
 *   if (error instanceof BudgetExceededError) console.error(`stopped at ${error.limit} = ${error.max}`)
 * }
 * ```
 */
export class BudgetExceededError extends ToolwireError {
  override readonly name = 'BudgetExceededError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_BUDGET_EXCEEDED'
  }
  /** Which limit (`maxPages`, `maxPolls` …). */
  readonly limit: BudgetLimit
  readonly max: number

  constructor(limit: BudgetLimit, max: number, message: string) {
    super(`${message} (limit ${limit} = ${max})`)
    this.limit = limit
    this.max = max
  }
}

/** Completes the limits a client was given with the defaults. */
export function budgetLimits(given: Partial<BudgetLimits> = {}): BudgetLimits {
  const limits: { -readonly [K in keyof BudgetLimits]: number } = { ...DEFAULT_BUDGET }
  for (const key of Object.keys(DEFAULT_BUDGET) as (keyof BudgetLimits)[]) {
    const value = given[key]
    if (value === undefined) continue
    if (!(value >= 0)) throw new RangeError(`${key} must be a number >= 0`)
    limits[key] = value
  }
  return limits
}

export class CallBudget {
  readonly limits: BudgetLimits
  /** What the call is, for messages (`tools/call search` …). */
  readonly what: string
  /** When the call's time is spent (epoch ms; Infinity without a limit). */
  readonly deadline: number
  /**
   * The call's own input handlers (a per-call `handlers` option), if any: what a 2025-era server asks while
   * this call is open is answered by them instead of the client's.
   */
  handlers: InputHandlers | undefined
  /**
   * The 2025-11-25 task this call waits on with tasks/result, if any: a server request that names the task
   * (its `io.modelcontextprotocol/related-task` `_meta`) belongs to this call even on stdio, where requests
   * name no call.
   */
  relatedTask: string | undefined = undefined
  /**
   * The span of the call's last request when telemetry is on (an OpenTelemetry span context, kept opaque here):
   * the next request of the same call (an input_required retry, a poll) links it, so the rounds of one call
   * stay connected even when no application span encloses them.
   */
  lastSpan: unknown = undefined
  readonly #totalMs: number | undefined
  #inputRounds = 0
  #inputRequests = 0
  #polls = 0
  #pages = 0
  #items = 0
  #serverRequests = 0

  constructor(limits: BudgetLimits, what: string, totalMs?: number) {
    this.limits = limits
    this.what = what
    const limited = totalMs !== undefined && Number.isFinite(totalMs) && totalMs > 0
    this.#totalMs = limited ? totalMs : undefined
    this.deadline = limited ? Date.now() + totalMs : Infinity
  }

  /** Milliseconds left (Infinity without a limit); throws once the time is spent. */
  remainingMs(): number {
    const left = this.deadline - Date.now()
    if (left <= 0) throw new RequestTimeoutError(this.#totalMs ?? 0, this.what)
    return left
  }

  /**
   * The error a call reports: a request cut short by the call's deadline (its `maxTotalTimeoutMs` was what
   * remained) is the call timing out, named as such; any other error is itself.
   */
  explain(error: unknown): unknown {
    const spent = error instanceof RequestTimeoutError && Date.now() + DEADLINE_SLACK_MS >= this.deadline
    return spent ? new RequestTimeoutError(this.#totalMs ?? 0, this.what) : error
  }

  /** The server asked for input once more (an `input_required` result, or new questions in a task). */
  inputRound(questions: number): void {
    const { maxInputRounds, maxInputRequests } = this.limits
    if (++this.#inputRounds >= maxInputRounds)
      throw new BudgetExceededError(
        'maxInputRounds',
        maxInputRounds,
        `${this.what}: still asking for input after ${this.#inputRounds} rounds`,
      )
    this.#inputRequests += questions
    if (this.#inputRequests > maxInputRequests)
      throw new BudgetExceededError(
        'maxInputRequests',
        maxInputRequests,
        `${this.what}: asked more than ${maxInputRequests} questions`,
      )
  }

  /** One more `tasks/get`; returns the pause before it (never under the floor, never past the deadline). */
  poll(suggestedDelayMs: number): number {
    const { maxPolls, minPollIntervalMs } = this.limits
    if (++this.#polls > maxPolls)
      throw new BudgetExceededError(
        'maxPolls',
        maxPolls,
        `${this.what}: the task did not end within ${maxPolls} polls`,
      )
    const delay = Math.max(minPollIntervalMs, Number.isFinite(suggestedDelayMs) ? suggestedDelayMs : 0)
    return Math.min(delay, this.remainingMs())
  }

  /**
   * One more list page with `items` items; `more` when it names a next page, which is refused once
   * `maxPages` pages were fetched (so no page past the limit is ever requested).
   */
  page(items: number, more: boolean): void {
    const { maxPages, maxItems } = this.limits
    this.#pages++
    this.#items += items
    if (this.#items > maxItems)
      throw new BudgetExceededError(
        'maxItems',
        maxItems,
        `${this.what}: the list goes on past ${maxItems} items`,
      )
    if (more && this.#pages >= maxPages)
      throw new BudgetExceededError(
        'maxPages',
        maxPages,
        `${this.what}: the list goes on past ${maxPages} pages`,
      )
  }

  /** Whether the server may send one more request for this call (false once the cap is reached). */
  admitServerRequest(): boolean {
    if (this.#serverRequests >= this.limits.maxServerRequests) return false
    this.#serverRequests++
    return true
  }
}
