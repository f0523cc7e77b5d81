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
import { type SchemaScan, scanSchema } from './scan.js'
import { withoutRefSiblings } from './draft-07.js'
import { nonFiniteAt } from './finite.js'
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
  /**
   * `finite`: the caller has already walked `value` and found no non-finite number (the input guard does for
   * a request's tool arguments), so that check (finite.ts) is not made a second time.
   */
  validate(value: unknown, finite?: boolean): ValidationOutcome
  /** As `validate`; may wait while a validator loads at start-up. */
  validateAsync(value: unknown, finite?: boolean): ValidationOutcome | Promise<ValidationOutcome>
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

/** Subschemas by the plain-name fragment (`#name`) their `$anchor` or `$dynamicAnchor` gives them. */
function anchorsOf(root: unknown): Map<string, object[]> {
  const anchors = new Map<string, object[]>()
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>
      for (const name of [record.$anchor, record.$dynamicAnchor]) {
        if (typeof name === 'string') anchors.set(name, [...(anchors.get(name) ?? []), node])
      }
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push(child)
  }
  return anchors
}

/**
 * Counts subschemas as validation visits them, each reference replaced by what it can reach (a recursive
 * reference counts once), and refuses past `maxExpandedNodes`. Untrusted schemas may only use references
 * inside the document (`#/pointer`, `#anchor`, `$dynamicRef`, `$recursiveRef`), so no reference escapes the
 * count: a `$dynamicRef` or `$recursiveRef` counts every subschema it could land on.
 */
function checkExpansion(root: unknown, untrusted: boolean): void {
  const sizes = new Map<object, number>()
  const open = new Set<object>()
  let anchors: Map<string, object[]> | undefined
  const targets = (ref: string): unknown[] => {
    const local = resolveLocal(root, ref)
    if (local !== undefined) return [local]
    if (!/^#[A-Za-z_][-A-Za-z0-9._]*$/.test(ref)) return []
    anchors ??= anchorsOf(root)
    return anchors.get(ref.slice(1)) ?? []
  }
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
      for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef'] as const) {
        const ref = record[keyword]
        if (typeof ref !== 'string') continue
        const reached = keyword === '$recursiveRef' ? [root] : targets(ref)
        if (reached.length === 0 && untrusted) {
          throw new SchemaError(
            `${keyword} ${JSON.stringify(ref)} is not a reference inside the schema (#...)`,
          )
        }
        for (const target of reached) total += size(target)
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
  /**
   * A 2020-12 schema with `$ref`s is not compiled by ajv at definition only to prove its references resolve:
   * its validator is built on first use, like a schema without references (the bounds, the `$ref`
   * expansion, the meta-schema and the patterns are still checked now). For schemas whose references the
   * caller wrote itself and whose validator may never run: `fromOpenAPI`'s answer schemas, where compiling
   * GitHub's 605 at definition took 3 of the 5 seconds of its load. A validator ajv then cannot compile falls
   * back to the interpreting one (schema-validator.ts).
   */
  readonly deferReferences?: boolean
}

/**
 * One compiler per server definition, so `$id`s of different servers never collide. Remote references fail at
 * compile time because no `loadSchema` is configured (basic/index §$ref Resolution: never dereference a
 * network URI, and an unresolved reference is an error, not a permissive schema).
 */
export class SchemaCompiler {
  readonly #choice: SchemaValidatorChoice
  readonly #untrusted: boolean
  readonly #deferReferences: boolean
  readonly #ajv: AjvModules | undefined
  /** Identical schemas (a thousand tools taking `{ text }`) share one validator, built once. */
  readonly #compiled = new Map<string, CompiledSchema>()
  #engine: AjvEngine | undefined

  constructor(options: SchemaCompilerOptions = {}) {
    this.#untrusted = options.untrusted === true
    this.#deferReferences = options.deferReferences === true
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

  /**
   * Which validator checks a schema: the configured one, except where it is known to misjudge a keyword the
   * schema uses, so both give one verdict (test/json-schema-suite.test.ts runs the official suite through
   * both). ajv lets items past `unevaluatedItems` when `contains` matched them, and inherited names
   * (`toString`) past `unevaluatedProperties` beside `if`/`then`/`else`: such schemas are interpreted, with
   * ajv's pattern engines, and ajv still checks them at definition wherever it checks other schemas then.
   * The interpreting validator accepts values `$dynamicRef` refuses: such schemas need ajv, and are refused
   * where ajv cannot run.
   */
  #engineFor(
    scan: SchemaScan,
    schema: Record<string, unknown>,
    dialect: Dialect,
    eager: boolean,
  ): 'ajv' | 'interpreted' {
    const configured = this.validator
    if (scan.dynamicRefs) {
      if (configured === 'interpreted') {
        throw new SchemaError(
          '$dynamicRef needs the ajv validator, which cannot run here (code generation is refused, or ' +
            "jsonSchemaValidator is 'interpreted'); the interpreting validator resolves it wrongly",
        )
      }
      return 'ajv'
    }
    if (!scan.unevaluated) return configured
    // Only where ajv would have compiled it at definition anyway: otherwise ajv stays unloaded at start-up.
    const ajv = configured === 'ajv' && eager ? this.#ajvEngine(true) : undefined
    if (ajv) {
      const problem = ajv.metaProblem(schema, dialect)
      if (problem) throw new SchemaError(problem)
      try {
        ajv.compile(schema, dialect) // an unresolvable `$ref` fails here, as for any other schema
      } catch (error) {
        if (!(error instanceof RangeError)) throw error // ajv's compiler overflowing: see schema-validator.ts
      }
    }
    return 'interpreted'
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
      // draft-07 ignores a `$ref`'s siblings; neither validator does, so they see a copy without them.
      const effective = dialect === 'draft-07' ? withoutRefSiblings(schema) : schema
      const scan = scanSchema(effective, this.#untrusted)
      // What only ajv can judge is judged now, so a bad schema fails when the server is defined.
      const eager =
        this.#choice === 'ajv' ||
        this.#untrusted ||
        dialect !== '2020-12' ||
        (scan.references && !this.#deferReferences)
      const chosen = this.#engineFor(scan, effective, dialect, eager)
      // ajv skips a property named "__proto__" in `properties` (it neither checks the value nor counts the
      // key as declared); the interpreting validator treats it like any name. Such a schema is interpreted,
      // unless it needs ajv for `$dynamicRef`. The name appears in the JSON text as written.
      const engine =
        chosen === 'ajv' && !scan.dynamicRefs && json.includes('"__proto__"') ? 'interpreted' : chosen
      // The interpreting validator may check this schema first: its files load while the server starts.
      if (engine === 'interpreted' || (!this.#ajv && !scan.nativeRegExps)) {
        lazyInterpreter.load().catch(() => undefined)
      }
      const validator = new SchemaValidator(effective, dialect, {
        engine,
        ajv: this.#ajvEngine,
        eager,
        // Patterns and formats run on the native engine in the interpreting validator: wait for ajv. So does
        // `$dynamicRef`, which only ajv resolves right.
        interimAllowed: !scan.nativeRegExps && !scan.dynamicRefs,
        interpreterFallback: !scan.dynamicRefs,
        ...((this.#untrusted || scan.unevaluated) && { linearPatterns: scan.linearPatterns }),
      })
      const compiled: CompiledSchema = {
        dialect,
        json,
        validate: (value, known) => (known === true ? undefined : finite(value)) ?? validator.validate(value),
        validateAsync: (value, known) =>
          (known === true ? undefined : finite(value)) ?? validator.validateAsync(value),
      }
      this.#compiled.set(key, compiled)
      return compiled
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new SchemaError(`${label}: invalid JSON Schema: ${reason}`)
    }
  }
}

/** A refusal for a value holding a non-finite number (finite.ts), or undefined. */
function finite(value: unknown): ValidationOutcome | undefined {
  const at = nonFiniteAt(value)
  if (at === undefined) return undefined
  return {
    ok: false,
    issues: [`${at ? `${at}: ` : 'value: '}must be a finite number (JSON has no Infinity or NaN)`],
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
