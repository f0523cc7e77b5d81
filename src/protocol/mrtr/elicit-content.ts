/**
 * What a client answers to a form elicitation is checked against the `requestedSchema` the server sent, not
 * only for its shape: the server states what it will accept, and a client (or the user typing into it) may
 * send anything (client/elicitation §Security Considerations: both sides validate content against the
 * requested schema; §Requested Schema: flat objects of primitive properties with types, enums, bounds and
 * formats). The check is the one the rest of the server uses (a `SchemaCompiler`), so an answer and a tool
 * argument breaking the same schema read alike.
 */
import { type CompiledSchema, SchemaCompiler } from '../../schema/json-schema.js'
import type { InputRequest } from '../../wire/types.js'

/**
 * Requested schemas are written by handlers and may be built per call (an enum of the caller's notes), so the
 * compiler that holds their validators is replaced after this many distinct ones: memory stays bounded
 * whatever a handler asks, and a server asking the same few questions compiles each once.
 */
const MAX_REQUESTED_SCHEMAS = 256

let compiler = new SchemaCompiler()
let compiledCount = 0
const compiled = new Map<string, CompiledSchema>()

function compile(schema: Record<string, unknown>): CompiledSchema {
  const key = JSON.stringify(schema)
  const known = compiled.get(key)
  if (known) return known
  if (compiledCount >= MAX_REQUESTED_SCHEMAS) {
    compiler = new SchemaCompiler()
    compiledCount = 0
    compiled.clear()
  }
  const fresh = compiler.compile(schema, 'elicitation requestedSchema')
  compiledCount++
  compiled.set(key, fresh)
  return fresh
}

/**
 * Why an accepted form answer's `content` does not fit the question's `requestedSchema` (empty when it fits,
 * or when the answer is not an accepted form answer). A requested schema that is not valid JSON Schema
 * throws `SchemaError`: that is the handler's mistake, not the client's.
 */
export async function elicitContentProblems(request: InputRequest, response: unknown): Promise<string[]> {
  if (request.method !== 'elicitation/create' || request.params.mode === 'url') return []
  const answer = response as { action?: unknown; content?: unknown }
  if (answer.action !== 'accept') return []
  const schema = request.params.requestedSchema as unknown as Record<string, unknown>
  const outcome = await compile(schema).validateAsync(answer.content ?? {})
  return outcome.ok ? [] : outcome.issues
}
