/**
 * Multi-round-trip requests from the handler's side. A handler asks (`await ctx.input.elicit(...)`); when the
 * answer is not in the request yet, the call ends with `resultType: "input_required"`, and the client's retry
 * runs the handler again, which then receives the answer. Earlier rounds' answers travel sealed inside
 * `requestState`, so every retry is self-contained and any instance sharing the secret can serve it.
 * Nothing here runs unless a handler asks: the plain tools/call path never touches HMAC.
 */
import { invalidParams, missingCapability } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  ElicitRequest,
  InputRequest,
  ListRootsRequest,
  Root,
} from '../../wire/types.js'
import type { RequestContext } from '../context.js'
import { ownerKey } from '../principal.js'
import { elicitContentProblems } from './elicit-content.js'
import { isValidResponse, missingCapabilityFor, responseProblem } from './responses.js'
import { digest, type RequestStateCodec, type StateBinding, type StatePayload } from './state.js'

/** Thrown by an ask whose answer is missing; the dispatcher sends `result` as the request's result. */
export class InputRequired {
  constructor(readonly result: Record<string, unknown>) {}
}

/** The methods that may answer `input_required` (patterns/mrtr §Supported Requests). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read'])

type ResponseOf<R extends InputRequest> = R extends { method: 'elicitation/create' }
  ? ElicitResult
  : R extends { method: 'sampling/createMessage' }
    ? CreateMessageResult
    : { roots: Root[] }

/**
 * Builders for `ctx.input.ask({...})`.
 *
 * @example
 * ```ts
 * const answers = await ctx.input.ask({
 *   confirm: inputRequest.elicit({
 *     message: 'Delete the note?',
 *     requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
 *   }),
 *   roots: inputRequest.listRoots(),
 * })
 * ```
 */
export const inputRequest = {
  elicit: (params: ElicitRequestFormParams): ElicitRequest => ({ method: 'elicitation/create', params }),
  elicitUrl: (params: { message: string; url: string }): ElicitRequest => ({
    method: 'elicitation/create',
    params: { mode: 'url', ...params },
  }),
  sample: (params: CreateMessageRequest['params']): CreateMessageRequest => ({
    method: 'sampling/createMessage',
    params,
  }),
  listRoots: (): ListRootsRequest => ({ method: 'roots/list' }),
}

type Capability = 'elicitation' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'roots'
const PROBES: Record<Capability, InputRequest> = {
  elicitation: inputRequest.elicit({ message: '', requestedSchema: { type: 'object', properties: {} } }),
  'elicitation.url': inputRequest.elicitUrl({ message: '', url: 'https://example.invalid' }),
  sampling: inputRequest.sample({ messages: [], maxTokens: 1 }),
  'sampling.tools': inputRequest.sample({ messages: [], maxTokens: 1, tools: [] }),
  roots: inputRequest.listRoots(),
}

export class RequestInputs {
  readonly #ctx: RequestContext
  readonly #codec: RequestStateCodec
  #loaded: Promise<StatePayload> | undefined
  #binding: Promise<StateBinding> | undefined
  /** Null-prototype: keys are plain data, whatever they are called. */
  #answers: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  #data: unknown
  #next: unknown
  #sequence = 0

  constructor(ctx: RequestContext, codec: RequestStateCodec) {
    this.#ctx = ctx
    this.#codec = codec
  }

  /** True when this request's `clientCapabilities` allow asking for that kind of input. */
  supports(capability: Capability): boolean {
    return missingCapabilityFor(PROBES[capability], this.#ctx.meta.clientCapabilities) === undefined
  }

  /** Every answer accepted so far (earlier rounds and this one); a task started now keeps them. */
  answered(): Record<string, unknown> {
    return { ...this.#answers }
  }

  /** Handler data from the previous round (set with `keep`), verified like the rest of the state. */
  async data<T = unknown>(): Promise<T | undefined> {
    await this.#load()
    return this.#data as T | undefined
  }

  /** Data to carry to the next round, inside the sealed `requestState`. */
  keep(value: unknown): void {
    this.#next = value
  }

  async elicit(params: ElicitRequestFormParams, key?: string): Promise<ElicitResult> {
    return this.#one(inputRequest.elicit(params), key ?? this.#key('elicit'))
  }

  /** URL-mode elicitation: `accept` means the user agreed to open the URL, not that they finished. */
  async elicitUrl(params: { message: string; url: string }, key?: string): Promise<ElicitResult> {
    return this.#one(inputRequest.elicitUrl(params), key ?? this.#key('elicit-url'))
  }

  async sample(params: CreateMessageRequest['params'], key?: string): Promise<CreateMessageResult> {
    return this.#one(inputRequest.sample(params), key ?? this.#key('sample'))
  }

  async listRoots(key?: string): Promise<Root[]> {
    return (await this.#one(inputRequest.listRoots(), key ?? this.#key('roots'))).roots
  }

  /** Asks several questions in one round; resolves when every one is answered. */
  async ask<const T extends Record<string, InputRequest>>(
    requests: T,
  ): Promise<{ [K in keyof T]: ResponseOf<T[K]> }> {
    const caps = this.#ctx.meta.clientCapabilities
    for (const request of Object.values(requests)) {
      const needed = missingCapabilityFor(request, caps)
      if (needed) throw missingCapability(needed)
    }
    const live = this.#ctx.exchange.request
    if (live) return this.#askLive(requests, live)
    await this.#load()
    const responses = this.#ctx.params.inputResponses as Record<string, unknown> | undefined
    const missing = Object.create(null) as Record<string, InputRequest>
    for (const [key, request] of Object.entries(requests)) {
      if (Object.hasOwn(this.#answers, key)) continue
      const response = responses && Object.hasOwn(responses, key) ? responses[key] : undefined
      // An answer counts when it is well formed for the question asked now under its key; answers are
      // never trusted beyond what the client could have said anyway, so unsolicited ones are fine.
      // A form answer whose content breaks the requestedSchema is refused the same way: the handler never
      // sees it, and the question is asked again.
      if (
        response !== undefined &&
        isValidResponse(request, response) &&
        (await elicitContentProblems(request, response)).length === 0
      )
        this.#answers[key] = response
      else missing[key] = request
    }
    if (Object.keys(missing).length > 0) {
      const requestState = await this.#seal()
      throw new InputRequired({ resultType: 'input_required', inputRequests: missing, requestState })
    }
    const out = Object.create(null) as Record<string, unknown>
    for (const key of Object.keys(requests)) out[key] = this.#answers[key]
    return out as { [K in keyof T]: ResponseOf<T[K]> }
  }

  /**
   * A legacy (2025-era) session: each question becomes a server-to-client request on the open stream and
   * the handler waits for the client's answer (2025-11-25 client/elicitation, client/sampling, client/roots).
   */
  async #askLive<const T extends Record<string, InputRequest>>(
    requests: T,
    send: (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>,
  ): Promise<{ [K in keyof T]: ResponseOf<T[K]> }> {
    const out = Object.create(null) as Record<string, unknown>
    for (const [key, request] of Object.entries(requests)) {
      if (Object.hasOwn(this.#answers, key)) {
        out[key] = this.#answers[key]
        continue
      }
      const response = await send(request.method, request.params ?? {}, this.#ctx.signal)
      // Each refusal names what was wrong, down to the form field: behind a proxy, the caller reads it in
      // an upstream's error and never saw the schema it broke.
      const problem = responseProblem(request, response)
      if (problem !== undefined)
        throw invalidParams(`The client answered ${request.method} with a malformed result: ${problem}`)
      const problems = await elicitContentProblems(request, response)
      if (problems.length > 0) {
        throw invalidParams(
          `The client's elicitation answer does not match the requestedSchema: ${problems.join('; ')}`,
        )
      }
      this.#answers[key] = response
      out[key] = response
    }
    return out as { [K in keyof T]: ResponseOf<T[K]> }
  }

  /** Ends this round with only a `requestState` ("come back later"); the retry sees `data()`. */
  async retryLater(data?: unknown): Promise<never> {
    await this.#load()
    if (data !== undefined) this.#next = data
    throw new InputRequired({ resultType: 'input_required', requestState: await this.#seal() })
  }

  async #one<R extends InputRequest>(request: R, key: string): Promise<ResponseOf<R>> {
    const answers = await this.ask({ [key]: request })
    return answers[key] as ResponseOf<R>
  }

  #key(kind: string): string {
    return `${kind}-${++this.#sequence}`
  }

  #bind(): Promise<StateBinding> {
    this.#binding ??= (async () => {
      const { method, params } = this.#ctx
      if (!INPUT_METHODS.has(method))
        throw new Error(`input requests are only allowed on tools/call, prompts/get and resources/read`)
      const name = method === 'resources/read' ? params.uri : params.name
      return {
        method,
        name: typeof name === 'string' ? name : '',
        argsDigest: await digest(method === 'resources/read' ? null : (params.arguments ?? {})),
        // The whole principal, anonymous callers included (by address bucket, as for handles, tasks and limits):
        // a round started by one anonymous caller cannot be finished by another (patterns/mrtr §Security).
        principal: ownerKey(this.#ctx.principal),
      }
    })()
    return this.#binding
  }

  #load(): Promise<StatePayload> {
    this.#loaded ??= (async () => {
      const binding = await this.#bind()
      const { inputResponses, requestState } = this.#ctx.params
      if (inputResponses !== undefined && !isRecord(inputResponses))
        throw invalidParams('Invalid params: inputResponses must be an object keyed by input request')
      if (requestState === undefined) return { answers: {} }
      const state = await this.#codec.open(requestState, binding)
      Object.assign(this.#answers, state.answers)
      this.#data = state.data
      return state
    })()
    return this.#loaded
  }

  async #seal(): Promise<string> {
    const payload: { answers: Record<string, unknown>; data?: unknown } = { answers: this.#answers }
    const data = this.#next ?? this.#data
    if (data !== undefined) payload.data = data
    return this.#codec.seal(await this.#bind(), payload)
  }
}
