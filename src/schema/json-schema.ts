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
import { trustedRegExp, untrustedRegExp } from './regexp.js'
import { codeGenerationAllowed, interpretedValidator } from './interpreted.js'

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

/**
 * Which validator compiles schemas: `ajv` generates code (fastest; needs `new Function`), `interpreted`
 * walks the schema instead (@cfworker/json-schema; works in Cloudflare Workers and other runtimes that
 * forbid code generation), `auto` (default) picks ajv where code generation is allowed.
 */
export type SchemaValidatorChoice = 'auto' | 'ajv' | 'interpreted'

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
 * Use): nesting, subschemas as written, and subschemas with every `$ref` expanded (24 chained `$ref`s that each
 * use the next twice expand to 2^24).
 */
export const SCHEMA_LIMITS = { maxDepth: 32, maxNodes: 5_000, maxExpandedNodes: 20_000 }

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

/** The subschema a local `$ref` (`#` or a `#/json/pointer`) names, if any. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node = root
  for (const raw of ref.slice(2).split('/')) {
    let token: string
    try {
      token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    } catch {
      return undefined
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

/**
 * Counts subschemas as validation visits them, each `$ref` replaced by its target (a recursive reference
 * counts once), and refuses past `maxExpandedNodes`. Untrusted schemas may only use local `$ref`s, so no
 * reference escapes the count.
 */
function checkExpansion(root: unknown, untrusted: boolean): void {
  const sizes = new Map<object, number>()
  const open = new Set<object>()
  const size = (node: unknown): number => {
    if (typeof node !== 'object' || node === null) return 0
    const known = sizes.get(node)
    if (known !== undefined) return known
    if (open.has(node)) return 1
    open.add(node)
    let total = 1
    for (const child of Array.isArray(node) ? node : Object.values(node)) total += size(child)
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>
      if (untrusted && ('$dynamicRef' in record || '$recursiveRef' in record)) {
        throw new SchemaError('$dynamicRef and $recursiveRef are not accepted from a peer')
      }
      if (typeof record.$ref === 'string') {
        const target = resolveLocal(root, record.$ref)
        if (target === undefined && untrusted) {
          throw new SchemaError(`$ref ${JSON.stringify(record.$ref)} is not a local reference (#/...)`)
        }
        total += size(target)
      }
    }
    open.delete(node)
    if (total > SCHEMA_LIMITS.maxExpandedNodes) {
      throw new SchemaError(
        `Schema expands to more than ${SCHEMA_LIMITS.maxExpandedNodes} subschemas once its $refs are followed`,
      )
    }
    sizes.set(node, total)
    return total
  }
  size(root)
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

// `code` names the engine only for ajv's standalone code generation, which toolwire does not use.
const UNTRUSTED_ENGINE = Object.assign(untrustedRegExp, { code: 'toolwire untrustedRegExp' })
const TRUSTED_ENGINE = Object.assign(trustedRegExp, { code: 'toolwire trustedRegExp' })

export interface SchemaCompilerOptions {
  /**
   * The schemas come from a peer (a server's `outputSchema`, an elicitation form): patterns run only on a
   * linear-time engine and only local `$ref`s are followed, so validation cannot stall the caller.
   */
  readonly untrusted?: boolean
  /** Which validator compiles (default `auto`: ajv where code generation is allowed). */
  readonly validator?: SchemaValidatorChoice
}

/**
 * One compiler per server definition, so `$id`s of different servers never collide. Remote references fail at
 * compile time because no `loadSchema` is configured (basic/index §$ref Resolution: never dereference a
 * network URI, and an unresolved reference is an error, not a permissive schema).
 */
export class SchemaCompiler {
  #instances = new Map<Dialect, AjvInstance>()
  readonly #untrusted: boolean
  readonly #choice: SchemaValidatorChoice

  constructor(options: SchemaCompilerOptions = {}) {
    this.#untrusted = options.untrusted === true
    this.#choice = options.validator ?? 'auto'
  }

  /** The validator the next compile uses, `auto` resolved (code generation can be allowed at start only). */
  get validator(): 'ajv' | 'interpreted' {
    if (this.#choice !== 'auto') return this.#choice
    return codeGenerationAllowed() ? 'ajv' : 'interpreted'
  }

  #ajv(dialect: Dialect): AjvInstance {
    let ajv = this.#instances.get(dialect)
    if (!ajv) {
      const options = {
        allErrors: true,
        strict: false,
        validateFormats: true,
        code: { regExp: this.#untrusted ? UNTRUSTED_ENGINE : TRUSTED_ENGINE },
      } as const
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
    let validate: CompiledSchema['validate']
    try {
      dialect = dialectOf(schema)
      checkBounds(schema)
      checkExpansion(schema, this.#untrusted)
      if (dialect === '2020-12' && !metaValidator2020(schema)) {
        throw new SchemaError(formatMetaErrors(metaValidator2020.errors))
      }
      validate =
        this.validator === 'ajv' ? this.#compileAjv(schema, dialect) : interpretedValidator(schema, dialect)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new SchemaError(`${label}: invalid JSON Schema: ${reason}`)
    }
    return { dialect, validate }
  }

  #compileAjv(schema: Record<string, unknown>, dialect: Dialect): CompiledSchema['validate'] {
    const ajv = this.#ajv(dialect)
    // 2020-12 schemas were checked by the generated meta validator; the older dialects ask ajv.
    if (dialect !== '2020-12' && !ajv.validateSchema(schema)) {
      throw new SchemaError(ajv.errorsText(ajv.errors, { dataVar: 'schema' }))
    }
    const fn: ValidateFunction = ajv.compile(schema)
    return (value) => (fn(value) ? { ok: true, value } : { ok: false, issues: formatIssues(fn.errors) })
  }
}

/** ajv's `errorsText` format (`schema/type must be string, …`) without needing an ajv instance. */
function formatMetaErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'schema does not match the 2020-12 meta-schema'
  return errors.map((e) => `schema${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ')
}
