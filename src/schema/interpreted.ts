/**
 * JSON Schema validation without code generation, for runtimes that forbid `new Function` (Cloudflare
 * Workers and other edge runtimes), and on Node while ajv loads. @cfworker/json-schema walks the schema at
 * validation time: slower than ajv's generated code, but it needs nothing a Worker refuses. It is itself
 * loaded when a server is defined, with `import()`, so its files load while the server starts listening.
 */
import type { OutputUnit, Schema, Validator } from '@cfworker/json-schema'
import { LazyModules } from '../wire/lazy-modules.js'
import type { Dialect, ValidationOutcome } from './json-schema.js'

export type ValidatorClass = typeof Validator

export const lazyInterpreter = new LazyModules<ValidatorClass>(
  (require) => (require('@cfworker/json-schema') as { Validator: ValidatorClass }).Validator,
  async () => (await import('@cfworker/json-schema')).Validator,
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

/** Renders @cfworker/json-schema's output units as short lines a model can act on, e.g. `a: …`. */
function formatUnits(units: readonly OutputUnit[]): string[] {
  const lines = new Set<string>()
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue
    const path = unit.instanceLocation.replace(/^#\/?/, '').replaceAll('/', '.')
    lines.add(`${path ? `${path}: ` : 'value: '}${unit.error}`)
  }
  return lines.size > 0 ? [...lines] : ['value does not match the schema']
}

export function interpretedValidator(
  Validator: ValidatorClass,
  schema: Record<string, unknown>,
  dialect: Dialect,
): (value: unknown) => ValidationOutcome {
  // The validator annotates the schema it is given (`__absolute_uri__` …); toolwire's schemas are frozen.
  const validator = new Validator(structuredClone(schema) as Schema, DRAFTS[dialect], false)
  return (value) => {
    let result
    try {
      result = validator.validate(value)
    } catch (error) {
      // A `$ref` that resolves nowhere (remote documents are never fetched) throws here, not at compile.
      return { ok: false, issues: [`schema cannot be applied: ${(error as Error).message}`] }
    }
    return result.valid ? { ok: true, value } : { ok: false, issues: formatUnits(result.errors) }
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
