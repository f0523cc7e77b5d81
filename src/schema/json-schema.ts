/**
 * JSON Schema checking for tool, prompt and elicitation schemas: 2020-12 by default, draft-07 and 2019-09
 * when `$schema` names them, remote `$ref`s never fetched, composition cost bounded. Every schema is checked
 * when a server is defined; validators are built on first use (schema-validator.ts), and identical schemas
 * share one.
 */
import type { ErrorObject } from 'ajv'
import { AjvEngine, type AjvModules } from './ajv-engine.js'
import { lazyAjv } from './engines.js'
import { validate as validateMeta2020 } from './meta-2020-12.generated.js'
import { codeGenerationAllowed, lazyInterpreter } from './interpreted.js'
import { isPlainSchema } from './plain-schema.js'
import { scanSchema } from './scan.js'
import { SchemaValidator } from './schema-validator.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

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

/**
 * A JSON Schema that cannot be compiled, or that exceeds the schema limits.
 *
 * @example
 * ```ts
 * try {
 *   defineServer({ name: 'x', version: '1', tools: [toolWithAHugeSchema] })
 * } catch (error) {
 *   if (error instanceof SchemaError) console.error(error.message) // names the limit or the bad keyword
 * }
 * ```
 */
export class SchemaError extends ToolwireError {
  override readonly name = 'SchemaError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_SCHEMA'
  }
}

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; issues: string[] }

export interface CompiledSchema {
  readonly dialect: Dialect
  /** The schema as JSON text: what identical schemas share their validator by. */
  readonly json: string
  validate(value: unknown): ValidationOutcome
  /** As `validate`; may wait while a validator loads at start-up. */
  validateAsync(value: unknown): ValidationOutcome | Promise<ValidationOutcome>
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

/**
 * Refuses schemas nested too deep or too large, before anything recursive (JSON.stringify, the meta
 * validator) touches them. Iterative, with `for…in`: it runs for every schema of a server before V8 has
 * optimised anything, where iterator protocols and closures cost most.
 */
function checkBounds(schema: unknown): void {
  const nodes: object[] = []
  const depths: number[] = []
  if (typeof schema === 'object' && schema !== null) {
    nodes.push(schema)
    depths.push(0)
  }
  let count = 0
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>
    const depth = depths.pop() as number
    if (depth > SCHEMA_LIMITS.maxDepth) {
      throw new SchemaError(`Schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`)
    }
    if (++count > SCHEMA_LIMITS.maxNodes) {
      throw new SchemaError(`Schema has more than ${SCHEMA_LIMITS.maxNodes} subschemas`)
    }
    for (const key in node) {
      const child = node[key]
      if (typeof child === 'object' && child !== null) {
        nodes.push(child)
        depths.push(depth + 1)
      }
    }
  }
}

export interface SchemaCompilerOptions {
  /**
   * The schemas come from a peer (a server's `outputSchema`, an elicitation form): patterns run only on a
   * linear-time engine and only local `$ref`s are followed, so validation cannot stall the caller.
   */
  readonly untrusted?: boolean
  /** Which validator compiles (default `auto`: ajv where code generation is allowed). */
  readonly validator?: SchemaValidatorChoice
  /** ajv imported up front; without it ajv is loaded when first needed (engines.ts). */
  readonly ajv?: AjvModules
}

/**
 * One compiler per server definition, so `$id`s of different servers never collide. Remote references fail at
 * compile time because no `loadSchema` is configured (basic/index §$ref Resolution: never dereference a
 * network URI, and an unresolved reference is an error, not a permissive schema).
 */
export class SchemaCompiler {
  readonly #choice: SchemaValidatorChoice
  readonly #untrusted: boolean
  readonly #ajv: AjvModules | undefined
  /** Identical schemas (a thousand tools taking `{ text }`) share one validator, built once. */
  readonly #compiled = new Map<string, CompiledSchema>()
  #engine: AjvEngine | undefined

  constructor(options: SchemaCompilerOptions = {}) {
    this.#untrusted = options.untrusted === true
    this.#choice = options.validator ?? 'auto'
    this.#ajv = options.ajv
  }

  /** The validator the next compile uses, `auto` resolved (code generation can be allowed at start only). */
  get validator(): 'ajv' | 'interpreted' {
    if (this.#choice !== 'auto') return this.#choice
    return codeGenerationAllowed() ? 'ajv' : 'interpreted'
  }

  /** This compiler's ajv engine, loading ajv synchronously if `now`; undefined while ajv is unavailable. */
  readonly #ajvEngine = (now: boolean): AjvEngine | undefined => {
    if (this.#engine) return this.#engine
    const modules = this.#ajv ?? (now ? lazyAjv.now() : lazyAjv.loaded())
    if (modules) this.#engine = new AjvEngine(modules, this.#untrusted)
    return this.#engine
  }

  compile(schema: Record<string, unknown>, label: string): CompiledSchema {
    try {
      const dialect = dialectOf(schema)
      const json = jsonOf(schema)
      const key = `${dialect}\n${json}`
      // An identical schema was bounded and checked already: a thousand tools sharing one pay for one.
      const known = this.#compiled.get(key)
      if (known) return known
      checkBounds(schema)
      checkExpansion(schema, this.#untrusted)
      // Most schemas are plainly valid; the large generated validator runs only for the rest.
      if (dialect === '2020-12' && !isPlainSchema(schema) && !metaValidator2020(schema)) {
        throw new SchemaError(formatMetaErrors(metaValidator2020.errors))
      }
      const scan = scanSchema(schema, this.#untrusted)
      // The interpreting validator may check this schema first: its files load while the server starts.
      if (this.validator === 'interpreted' || (!this.#ajv && !scan.nativeRegExps)) {
        lazyInterpreter.load().catch(() => undefined)
      }
      const validator = new SchemaValidator(schema, dialect, {
        engine: this.validator,
        ajv: this.#ajvEngine,
        // What only ajv can judge is judged now, so a bad schema fails when the server is defined.
        eager: this.#choice === 'ajv' || this.#untrusted || dialect !== '2020-12' || scan.references,
        // Patterns and formats run on the native engine in the interpreting validator: wait for ajv.
        interimAllowed: !scan.nativeRegExps,
        ...(this.#untrusted && { linearPatterns: scan.linearPatterns }),
      })
      const compiled: CompiledSchema = {
        dialect,
        json,
        validate: (value) => validator.validate(value),
        validateAsync: (value) => validator.validateAsync(value),
      }
      this.#compiled.set(key, compiled)
      return compiled
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new SchemaError(`${label}: invalid JSON Schema: ${reason}`)
    }
  }
}

/** The schema as JSON; one too deep or cyclic to serialise fails with the bounds' own message. */
function jsonOf(schema: Record<string, unknown>): string {
  try {
    return JSON.stringify(schema)
  } catch (error) {
    checkBounds(schema)
    throw error
  }
}

/** ajv's `errorsText` format (`schema/type must be string, …`) without needing an ajv instance. */
function formatMetaErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'schema does not match the 2020-12 meta-schema'
  return errors.map((e) => `schema${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ')
}
