/**
 * JSON Schema compilation for tool, prompt and elicitation schemas: 2020-12 by default, draft-07 and
 * 2019-09 when `$schema` names them, remote `$ref`s never fetched, composition cost bounded.
 * Schemas are compiled once, when a server is defined; validation is then a plain function call.
 */
import Ajv2019Module from 'ajv/dist/2019.js'
import Ajv2020Module from 'ajv/dist/2020.js'
import AjvDraft07Module, { type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { validate as validateMeta2020 } from './meta-2020-12.generated.js'

const Ajv2020 = Ajv2020Module.default
const Ajv2019 = Ajv2019Module.default
const AjvDraft07 = AjvDraft07Module.default
const addFormats = addFormatsModule.default

type AjvInstance = InstanceType<typeof Ajv2020> | InstanceType<typeof AjvDraft07>

/** ajv's 2020-12 meta-schema validator, generated ahead of time (scripts/meta-validator.mjs). */
const metaValidator2020 = validateMeta2020 as ((schema: unknown) => boolean) & {
  errors?: ErrorObject[] | null
}

export type Dialect = '2020-12' | '2019-09' | 'draft-07'

const DIALECTS: Record<string, Dialect> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2020-12/schema#': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'https://json-schema.org/draft/2019-09/schema#': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'http://json-schema.org/draft-07/schema#': 'draft-07',
}

/**
 * Limits against schemas that are expensive to compile or validate (basic/index §Composition-Keyword Resource
 * Use).
 */
export const SCHEMA_LIMITS = { maxDepth: 32, maxNodes: 5_000 }

export class SchemaError extends Error {
  override readonly name = 'SchemaError'
}

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; issues: string[] }

export interface CompiledSchema {
  readonly dialect: Dialect
  validate(value: unknown): ValidationOutcome
}

/**
 * Names the dialect a schema declares; throws for one toolwire does not support (basic/index §Schema Dialect:
 * an unsupported dialect is an error).
 */
export function dialectOf(schema: Record<string, unknown>): Dialect {
  const declared = schema.$schema
  if (declared === undefined) return '2020-12'
  if (typeof declared !== 'string') throw new SchemaError('$schema must be a string')
  const dialect = DIALECTS[declared]
  if (!dialect) {
    throw new SchemaError(
      `Unsupported JSON Schema dialect ${declared}; supported: 2020-12 (default), 2019-09, draft-07`,
    )
  }
  return dialect
}

function checkBounds(schema: unknown): void {
  let nodes = 0
  const walk = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null) return
    if (depth > SCHEMA_LIMITS.maxDepth) {
      throw new SchemaError(`Schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`)
    }
    if (++nodes > SCHEMA_LIMITS.maxNodes) {
      throw new SchemaError(`Schema has more than ${SCHEMA_LIMITS.maxNodes} subschemas`)
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) walk(child, depth + 1)
  }
  walk(schema, 0)
}

/** Renders ajv errors as short lines a model can act on, e.g. `a: must be number`. */
export function formatIssues(errors: readonly ErrorObject[] | null | undefined): string[] {
  if (!errors || errors.length === 0) return ['value does not match the schema']
  const lines = new Set<string>()
  for (const error of errors) {
    const path = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : ''
    const at = path ? `${path}: ` : ''
    const params = error.params as Record<string, unknown>
    switch (error.keyword) {
      case 'required':
        lines.add(`${at}missing required property '${String(params.missingProperty)}'`)
        break
      case 'additionalProperties':
        lines.add(`${at}unexpected property '${String(params.additionalProperty)}'`)
        break
      case 'unevaluatedProperties':
        lines.add(`${at}unexpected property '${String(params.unevaluatedProperty)}'`)
        break
      case 'enum':
        lines.add(`${at}must be one of ${JSON.stringify(params.allowedValues)}`)
        break
      case 'if':
        break // the failing then/else branch reports the useful line
      default:
        lines.add(`${at || 'value: '}${error.message ?? 'is invalid'}`)
    }
  }
  return lines.size > 0 ? [...lines] : ['value does not match the schema']
}

/**
 * One compiler per server definition, so `$id`s of different servers never collide. Remote references fail at
 * compile time because no `loadSchema` is configured (basic/index §$ref Resolution: never dereference a
 * network URI, and an unresolved reference is an error, not a permissive schema).
 */
export class SchemaCompiler {
  #instances = new Map<Dialect, AjvInstance>()

  #ajv(dialect: Dialect): AjvInstance {
    let ajv = this.#instances.get(dialect)
    if (!ajv) {
      const options = { allErrors: true, strict: false, validateFormats: true } as const
      ajv =
        dialect === '2020-12'
          ? // The generated meta validator checks 2020-12 schemas, so ajv need not compile its own.
            new Ajv2020({ ...options, validateSchema: false })
          : dialect === '2019-09'
            ? new Ajv2019(options)
            : new AjvDraft07(options)
      addFormats(ajv as InstanceType<typeof AjvDraft07>)
      this.#instances.set(dialect, ajv)
    }
    return ajv
  }

  compile(schema: Record<string, unknown>, label: string): CompiledSchema {
    let dialect: Dialect
    let fn: ValidateFunction
    try {
      dialect = dialectOf(schema)
      checkBounds(schema)
      const ajv = this.#ajv(dialect)
      if (dialect === '2020-12') {
        if (!metaValidator2020(schema)) {
          throw new SchemaError(ajv.errorsText(metaValidator2020.errors, { dataVar: 'schema' }))
        }
      } else if (!ajv.validateSchema(schema)) {
        throw new SchemaError(ajv.errorsText(ajv.errors, { dataVar: 'schema' }))
      }
      fn = ajv.compile(schema)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new SchemaError(`${label}: invalid JSON Schema: ${reason}`)
    }
    return {
      dialect,
      validate: (value) => (fn(value) ? { ok: true, value } : { ok: false, issues: formatIssues(fn.errors) }),
    }
  }
}
