/**
 * What a client may ask for and answer inside a multi-round-trip request: capability checks against this
 * request's `clientCapabilities` (patterns/mrtr §Server Requirements; client/elicitation §Capabilities:
 * `elicitation: {}` means form only) and shape checks of each `inputResponses` entry (patterns/mrtr §Error
 * Handling). A malformed answer counts as missing, so the question is asked again.
 */
import { isRecord } from '../../wire/jsonrpc.js'
import type { ClientCapabilities, InputRequest } from '../../wire/types.js'

/** The client capability an input request needs, as `requiredCapabilities` of a -32021 error. */
export function missingCapabilityFor(
  request: InputRequest,
  caps: ClientCapabilities,
): Record<string, unknown> | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = caps.elicitation
      const url = request.params.mode === 'url'
      if (!elicitation) return { elicitation: url ? { url: {} } : {} }
      const declaresModes = elicitation.form !== undefined || elicitation.url !== undefined
      if (url) return elicitation.url ? undefined : { elicitation: { url: {} } }
      return !declaresModes || elicitation.form ? undefined : { elicitation: { form: {} } }
    }
    case 'sampling/createMessage':
      if (!caps.sampling) return { sampling: request.params.tools ? { tools: {} } : {} }
      return request.params.tools && !caps.sampling.tools ? { sampling: { tools: {} } } : undefined
    case 'roots/list':
      return caps.roots ? undefined : { roots: {} }
  }
}

const ACTIONS = new Set(['accept', 'decline', 'cancel'])

/**
 * What is wrong with a form answer's content, naming the field (undefined when its shape is fine): a
 * required field missing, or a value not of its declared primitive type (client/elicitation §Requested
 * Schema: flat objects of strings, numbers, booleans and string arrays).
 */
function formContentProblem(content: unknown, schema: Record<string, unknown>): string | undefined {
  if (!isRecord(content)) return 'content must be an object'
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  for (const key of required)
    if (typeof key === 'string' && content[key] === undefined) return `${key}: required, missing`
  for (const [key, value] of Object.entries(content)) {
    const declared = properties[key]
    const type = isRecord(declared) ? declared.type : undefined
    switch (type) {
      case 'string':
        if (typeof value !== 'string') return `${key}: must be a string`
        break
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) return `${key}: must be a number`
        break
      case 'integer':
        if (!Number.isInteger(value)) return `${key}: must be an integer`
        break
      case 'boolean':
        if (typeof value !== 'boolean') return `${key}: must be a boolean`
        break
      case 'array':
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
          return `${key}: must be an array of strings`
        break
      default: {
        const primitive = ['string', 'number', 'boolean'].includes(typeof value)
        if (!primitive && !(Array.isArray(value) && value.every((item) => typeof item === 'string')))
          return `${key}: must be a string, number, boolean or array of strings`
      }
    }
  }
  return undefined
}

/**
 * What makes `response` no well-formed answer to `request`, in words (undefined when it is one): a form
 * answer's problem names its field, so a caller behind a proxy learns which of its answers was refused.
 */
export function responseProblem(request: InputRequest, response: unknown): string | undefined {
  if (!isRecord(response)) return 'the result is not an object'
  switch (request.method) {
    case 'elicitation/create': {
      if (typeof response.action !== 'string' || !ACTIONS.has(response.action))
        return 'action must be accept, decline or cancel'
      if (response.action !== 'accept' || request.params.mode === 'url') return undefined
      return formContentProblem(response.content, request.params.requestedSchema)
    }
    case 'sampling/createMessage':
      return (response.role === 'user' || response.role === 'assistant') &&
        typeof response.model === 'string' &&
        (isRecord(response.content) || Array.isArray(response.content))
        ? undefined
        : 'a sampling result needs role (user or assistant), model and content'
    case 'roots/list':
      return Array.isArray(response.roots) &&
        response.roots.every((root) => isRecord(root) && typeof root.uri === 'string')
        ? undefined
        : 'roots must be an array of objects with a uri'
  }
}

/** True when `response` is a well-formed answer to `request`. */
export function isValidResponse(request: InputRequest, response: unknown): boolean {
  return responseProblem(request, response) === undefined
}
