/**
 * JSON Schema validation without code generation, for runtimes that forbid `new Function` (Cloudflare
 * Workers and other edge runtimes), and on Node while ajv loads. @cfworker/json-schema walks the schema at
 * validation time: slower than ajv's generated code, but it needs nothing a Worker refuses. It is itself
 * loaded when a server is defined, with `import()`, so its files load while the server starts listening.
 */
import type { OutputUnit, Schema, Validator } from '@cfworker/json-schema'
import type { Format } from 'ajv'
import { commonJs, exportsOf, LazyModules } from '../wire/lazy-modules.js'
import type { Dialect, ValidationOutcome } from './json-schema.js'
import type { RegExpLike } from './regexp.js'

export type ValidatorClass = typeof Validator

interface InterpreterModule {
  readonly Validator: ValidatorClass
  readonly format: Record<string, (text: string) => boolean>
}

/**
 * Gives the interpreter ajv-formats' checks for every string format, so a `format` means the same to both
 * validators (their own checks differ: `a@b` is an email to one and not the other). @cfworker/json-schema
 * keeps one format table per process, which this fills; it only checks strings, so the numeric formats
 * (`int32`, `int64`, `float`, `double`) stay unchecked there.
 */
function sharedFormats(module: InterpreterModule, formats: Record<string, Format>): ValidatorClass {
  for (const [name, definition] of Object.entries(formats)) {
    if (definition === true) module.format[name] = () => true
    else if (typeof definition === 'string')
      continue // ajv-formats defines none by a source text
    else if (definition instanceof RegExp || typeof definition === 'function') {
      module.format[name] = check(definition)
    } else if ((definition.type ?? 'string') === 'string' && definition.async !== true) {
      module.format[name] = check(definition.validate as RegExp | ((text: string) => boolean))
    } else delete module.format[name]
  }
  return module.Validator
}

const check =
  (definition: RegExp | ((text: string) => boolean)) =>
  (text: string): boolean =>
    definition instanceof RegExp ? definition.test(text) : definition(text)

type FormatsModule = { fullFormats: Record<string, Format> }

export const lazyInterpreter = new LazyModules<ValidatorClass>(
  (require) =>
    sharedFormats(
      require('@cfworker/json-schema') as InterpreterModule,
      exportsOf<FormatsModule>(require('ajv-formats/dist/formats.js')).fullFormats,
    ),
  async () => {
    const [interpreter, formats] = await Promise.all([
      import('@cfworker/json-schema'),
      commonJs('ajv-formats/dist/formats.js', () => import('ajv-formats/dist/formats.js')),
    ])
    return sharedFormats(interpreter, exportsOf<FormatsModule>(formats).fullFormats)
  },
)

const DRAFTS = { '2020-12': '2020-12', '2019-09': '2019-09', 'draft-07': '7' } as const

/**
 * Keywords that only report that a subschema failed; the subschema's own error says what is wrong.
 * ("Property "a" does not match schema." says less than "a: Instance type "string" is invalid.")
 */
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  '$ref',
  '$recursiveRef',
  '$dynamicRef',
  'allOf',
  'dependentSchemas',
  'dependencies',
  'unevaluatedItems',
  'if',
  'then',
  'else',
  'propertyNames',
])

/**
 * A failed `pattern` reads as ajv words it (`must match pattern "^[0-9]+$"`), so a model is told which pattern
 * whichever validator judged; the interpreter's own line (`String does not match pattern.`) does not say.
 */
function errorOf(unit: OutputUnit, schema: Record<string, unknown>): string {
  if (unit.keyword !== 'pattern') return unit.error
  let pattern: unknown
  try {
    pattern = atPointer(schema, unit.keywordLocation)
  } catch {
    return unit.error // a `$ref` that is not a well-formed pointer
  }
  return typeof pattern === 'string' ? `must match pattern ${JSON.stringify(pattern)}` : unit.error
}

/**
 * The schema value at a keyword location (`#/properties/a/$ref/pattern`: the path validation took, through
 * local `$ref`s); undefined where it leads elsewhere (a reference to another `$id`).
 */
function atPointer(root: Record<string, unknown>, location: string, depth = 0): unknown {
  if (!location.startsWith('#') || depth > 32) return undefined
  let node: unknown = root
  for (const raw of location.slice(2).split('/')) {
    if (raw === '') continue
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined
    const next: unknown = (node as Record<string, unknown>)[token]
    node = token === '$ref' && typeof next === 'string' ? atPointer(root, next, depth + 1) : next
  }
  return node
}

/** Renders @cfworker/json-schema's output units as short lines a model can act on, e.g. `a: …`. */
function formatUnits(units: readonly OutputUnit[], schema: Record<string, unknown>): string[] {
  const lines = new Set<string>()
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue
    const path = unit.instanceLocation.replace(/^#\/?/, '').replaceAll('/', '.')
    lines.add(`${path ? `${path}: ` : 'value: '}${errorOf(unit, schema)}`)
  }
  return lines.size > 0 ? [...lines] : ['value does not match the schema']
}

export function interpretedValidator(
  Validator: ValidatorClass,
  schema: Record<string, unknown>,
  dialect: Dialect,
  linearPatterns?: ReadonlyMap<string, RegExpLike>,
): (value: unknown) => ValidationOutcome {
  // The validator annotates the schema it is given (`__absolute_uri__` …); toolwire's schemas are frozen.
  const validator = new Validator(structuredClone(schema) as Schema, DRAFTS[dialect], false)
  const run =
    linearPatterns && linearPatterns.size > 0
      ? (value: unknown) => withLinearPatterns(linearPatterns, () => validator.validate(value))
      : (value: unknown) => validator.validate(value)
  return (value) => {
    let result
    try {
      result = run(value)
    } catch (error) {
      // A `$ref` that resolves nowhere (remote documents are never fetched) throws here, not at compile.
      return { ok: false, issues: [`schema cannot be applied: ${(error as Error).message}`] }
    }
    return result.valid ? { ok: true, value } : { ok: false, issues: formatUnits(result.errors, schema) }
  }
}

/**
 * Runs one synchronous validation with a peer's `pattern`s and `patternProperties` on RE2. The interpreter
 * builds each pattern with the global `new RegExp(pattern, 'u')` as it validates (no hook, no pattern
 * option), and a backtracking match of a hostile pattern (`^(a+)+$` against `aaaa…b`) never ends
 * (server/tools §Output Schema: clients validate structured results; basic/security_best_practices: a
 * server is untrusted). So, for the duration of this call only, `RegExp` answers with the RE2 matcher the
 * schema scan compiled for that exact source, the one ajv uses too, so both validators reach one verdict.
 * Any other source (an ajv-formats check) gets the native engine as before. Validation is synchronous:
 * nothing else runs while the binding is swapped, and it is restored even if validation throws.
 */
function withLinearPatterns<T>(patterns: ReadonlyMap<string, RegExpLike>, run: () => T): T {
  const global = globalThis as { RegExp: RegExpConstructor }
  const Native = global.RegExp
  const Linear = function (source: string | RegExp, flags?: string): RegExpLike {
    const linear = typeof source === 'string' && flags === 'u' ? patterns.get(source) : undefined
    return linear ?? new Native(source, flags)
  } as unknown as RegExpConstructor
  global.RegExp = Linear
  try {
    return run()
  } finally {
    global.RegExp = Native
  }
}

/**
 * Whether `new Function` works here and now. Asked at every compile, never at module scope: workerd allows
 * code generation while a Worker starts (with recent compatibility dates) but not inside a request.
 */
export function codeGenerationAllowed(): boolean {
  try {
    return new Function('return true')() === true
  } catch {
    return false
  }
}
