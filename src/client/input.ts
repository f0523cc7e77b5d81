/**
 * The input_required loop (MRTR): answer each embedded request with the application's handler, then retry the
 * original request with a new id, the answers keyed as asked, and the exact `requestState` (patterns/mrtr
 * §Client Requirements). Only requests for capabilities the client declared are answered (anything else is a
 * protocol violation, not retried).
 */
import { isRecord } from '../wire/jsonrpc.js'
import type {
  ClientCapabilities,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestUrlParams,
  ElicitResult,
  ListRootsResult,
  Root,
} from '../wire/types.js'
import { InvalidResponseError } from './errors.js'

/** What a handler learns about the request it answers. */
export interface InputContext {
  /**
   * The request that asked: e.g. `tools/call` of tool `name`. A 2025-era server that asks over stdio does not
   * say which call it serves; then it is the server request itself (`elicitation/create` …).
   */
  readonly method: string
  readonly name?: string | undefined
  /** The key the server gave this input request. */
  readonly key: string
  readonly signal: AbortSignal
}

/**
 * How the client answers what a server asks of the user or the model during a request (elicitation, sampling, roots).
 *
 * @example
 * ```ts
 * const client = connect(
 *   { url: 'https://mcp.example.com/mcp' },
 *   {
 *     handlers: {
 *       elicitation: async (params) => ({ action: 'accept', content: await askUser(params) }),
 *       roots: () => [{ uri: 'file:///home/me/project' }],
 *     },
 *   },
 * )
 * ```
 */
export interface InputHandlers {
  /** Form or URL elicitation: ask the user. */
  elicitation?: (
    params: ElicitRequestFormParams | ElicitRequestUrlParams,
    context: InputContext,
  ) => Promise<ElicitResult> | ElicitResult
  /** Sampling: ask a model. */
  sampling?: (params: Record<string, unknown>, context: InputContext) => Promise<CreateMessageResult>
  /** The roots the server may look at (a list, or a function returning one). */
  roots?: readonly Root[] | ((context: InputContext) => Promise<readonly Root[]> | readonly Root[])
}

/** The capabilities the handlers imply, merged over what the application declared. */
export function capabilitiesFor(
  handlers: InputHandlers,
  declared: ClientCapabilities = {},
): ClientCapabilities {
  const capabilities: ClientCapabilities = { ...declared }
  if (handlers.elicitation && !capabilities.elicitation) capabilities.elicitation = { form: {}, url: {} }
  if (handlers.sampling && !capabilities.sampling) capabilities.sampling = {}
  if (handlers.roots && !capabilities.roots) capabilities.roots = {}
  return capabilities
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel'])

/** Answers every input request of one round; throws on a request the client cannot or may not answer. */
export async function answerInputs(
  inputRequests: unknown,
  handlers: InputHandlers,
  capabilities: ClientCapabilities,
  base: Omit<InputContext, 'key'>,
): Promise<Record<string, unknown>> {
  if (inputRequests === undefined) return {}
  if (!isRecord(inputRequests)) throw new InvalidResponseError('inputRequests must be an object')
  const answers: Record<string, unknown> = {}
  for (const [key, request] of Object.entries(inputRequests)) {
    if (!isRecord(request) || typeof request.method !== 'string') {
      throw new InvalidResponseError(`input request ${JSON.stringify(key)} has no method`)
    }
    const context = { ...base, key }
    const params = isRecord(request.params) ? request.params : {}
    switch (request.method) {
      case 'elicitation/create': {
        const mode = params.mode ?? 'form'
        const allowed = capabilities.elicitation?.[mode === 'url' ? 'url' : 'form']
        if (!handlers.elicitation || !allowed || (mode !== 'form' && mode !== 'url')) {
          throw new InvalidResponseError(
            `the server asked for ${String(mode)}-mode elicitation, which this client did not declare`,
          )
        }
        const result = await handlers.elicitation(
          params as unknown as ElicitRequestFormParams | ElicitRequestUrlParams,
          context,
        )
        if (!isRecord(result) || !ELICIT_ACTIONS.has(result.action as string)) {
          throw new TypeError(`the elicitation handler must return an action: accept, decline or cancel`)
        }
        answers[key] = result
        break
      }
      case 'sampling/createMessage':
        if (!handlers.sampling || !capabilities.sampling) {
          throw new InvalidResponseError('the server asked for sampling, which this client did not declare')
        }
        answers[key] = await handlers.sampling(params, context)
        break
      case 'roots/list': {
        if (!handlers.roots || !capabilities.roots) {
          throw new InvalidResponseError('the server asked for roots, which this client did not declare')
        }
        const roots = typeof handlers.roots === 'function' ? await handlers.roots(context) : handlers.roots
        answers[key] = { roots: [...roots] } satisfies ListRootsResult
        break
      }
      default:
        throw new InvalidResponseError(`unknown input request method ${JSON.stringify(request.method)}`)
    }
  }
  return answers
}
