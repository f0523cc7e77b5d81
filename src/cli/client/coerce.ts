/** `key=value` arguments typed by the tool's input schema: numbers, booleans, and JSON for objects and arrays. */
import { UsageError } from './target.js'

type Schema = Record<string, unknown>

function typesOf(schema: Schema | undefined): string[] {
  const type = schema?.type
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  if (Array.isArray(schema?.enum))
    return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))]
  return []
}

/** One value, by the property's declared type; an undeclared type keeps the string. */
export function coerceValue(key: string, raw: string, schema: Schema | undefined): unknown {
  const types = typesOf(schema)
  const fail = (what: string): never => {
    throw new UsageError(`${key}=${raw}: expected ${what}`)
  }
  if (types.includes('null') && raw === 'null') return null
  if (types.includes('string')) return raw
  if (types.includes('integer') || types.includes('number')) {
    const value = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(value)) return fail('a number')
    if (!types.includes('number') && !Number.isInteger(value)) return fail('an integer')
    return value
  }
  if (types.includes('boolean')) {
    if (raw === 'true') return true
    if (raw === 'false') return false
    return fail('true or false')
  }
  if (types.includes('object') || types.includes('array')) {
    try {
      return JSON.parse(raw)
    } catch {
      return fail(`JSON (${types.join(' or ')})`)
    }
  }
  return raw
}

/** Builds the arguments object from `--json-args` and `key=value` pairs (pairs win). */
export function buildArguments(
  pairs: readonly string[],
  jsonArgs: string | undefined,
  inputSchema: Schema | undefined,
): Record<string, unknown> {
  let args: Record<string, unknown> = {}
  if (jsonArgs !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(jsonArgs)
    } catch (error) {
      throw new UsageError(`--json-args is not valid JSON: ${(error as Error).message}`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageError('--json-args must be a JSON object')
    }
    args = parsed as Record<string, unknown>
  }
  const properties = (inputSchema?.properties ?? {}) as Record<string, Schema>
  // Names the schema does not list are typed by `additionalProperties` when it is a schema (a map of numbers).
  const others = inputSchema?.additionalProperties
  const otherSchema = typeof others === 'object' && others !== null ? (others as Schema) : undefined
  for (const pair of pairs) {
    const equals = pair.indexOf('=')
    if (equals <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair)}`)
    const key = pair.slice(0, equals)
    args[key] = coerceValue(
      key,
      pair.slice(equals + 1),
      Object.hasOwn(properties, key) ? properties[key] : otherSchema,
    )
  }
  return args
}
