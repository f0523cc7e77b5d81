/**
 * Validates every message a server sends against the specification's own schema.json, read at test time
 * from the shared spec folder beside the repository (never copied into it).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import { SHARED } from './paths.js'

const SCHEMA_PATH = join(SHARED, 'spec', 'schema', 'schema.json')
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, unknown> }
const ajv = new Ajv2020Module.default({ strict: false, allErrors: true })
addFormatsModule.default(ajv as never)
ajv.addSchema(schema, 'mcp')

const cache = new Map<string, ValidateFunction>()
function validator(def: string): ValidateFunction {
  let fn = cache.get(def)
  if (!fn) {
    if (!(def in schema.$defs)) throw new Error(`schema.json has no $defs/${def}`)
    fn = ajv.getSchema(`mcp#/$defs/${def}`)
    if (!fn) throw new Error(`cannot compile $defs/${def}`)
    cache.set(def, fn)
  }
  return fn
}

/** The `*ResultResponse` definition for each method's successful result. */
const RESULT_RESPONSE: Record<string, string> = {
  'server/discover': 'DiscoverResultResponse',
  'tools/list': 'ListToolsResultResponse',
  'tools/call': 'CallToolResultResponse',
  'prompts/list': 'ListPromptsResultResponse',
  'prompts/get': 'GetPromptResultResponse',
  'resources/list': 'ListResourcesResultResponse',
  'resources/read': 'ReadResourceResultResponse',
  'resources/templates/list': 'ListResourceTemplatesResultResponse',
  'completion/complete': 'CompleteResultResponse',
  'subscriptions/listen': 'SubscriptionsListenResultResponse',
}

const INPUT_REQUIRED = new Set(['tools/call', 'prompts/get', 'resources/read'])

export function validateDef(def: string, value: unknown): string[] {
  const fn = validator(def)
  return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
}

/**
 * Throws unless `message` is a valid server message: a response to `method` (result or error) or a
 * server notification.
 */
export function assertServerMessage(message: unknown, method?: string): void {
  const m = message as Record<string, unknown>
  let problems: string[]
  if ('method' in m) {
    problems = validateDef('ServerNotification', m)
    if (problems.length === 0) problems = validateDef('JSONRPCNotification', m)
  } else if ('error' in m) {
    problems = validateDef('JSONRPCErrorResponse', m)
  } else {
    const result = (m.result ?? {}) as Record<string, unknown>
    if (result.resultType === 'input_required' && method && INPUT_REQUIRED.has(method)) {
      problems = validateDef('InputRequiredResult', result)
    } else {
      const def = (method && RESULT_RESPONSE[method]) ?? 'JSONRPCResultResponse'
      problems = validateDef(def, m)
    }
  }
  if (problems.length > 0) {
    throw new Error(`server message breaks schema.json:\n${problems.join('\n')}\n${JSON.stringify(message)}`)
  }
}
