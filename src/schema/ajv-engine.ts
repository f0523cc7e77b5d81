/**
 * ajv, the code-generating validator, behind one small interface. The ajv modules are handed in rather than
 * imported here, so a server can load ajv after its first answer (engines.ts) while a client, whose schemas
 * come from untrusted peers and must run their patterns on RE2, imports it up front (ajv-static.ts).
 */
import type { Ajv2019 } from 'ajv/dist/2019.js'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type { Ajv as AjvDraft07, ErrorObject, ValidateFunction } from 'ajv'
import type { FormatsPlugin } from 'ajv-formats'
import type { Dialect, ValidationOutcome } from './json-schema.js'
import { TOOLWIRE_KEYWORDS } from './keywords.js'
import { trustedRegExp, untrustedRegExp } from './regexp.js'

/** The ajv classes and the formats plugin, however they were loaded. */
export interface AjvModules {
  // The named exports, not `default`: what a default import of these CommonJS modules is depends on the
  // importer's module resolution (the module object under NodeNext, its `default` under a bundler's), so a
  // declaration naming `.default` fails to type-check in one of them.
  readonly Ajv2020: typeof Ajv2020
  readonly Ajv2019: typeof Ajv2019
  readonly AjvDraft07: typeof AjvDraft07
  readonly addFormats: FormatsPlugin
}

type AjvInstance = InstanceType<AjvModules['Ajv2020']> | InstanceType<AjvModules['AjvDraft07']>

/** A compiled validator, or the reason the schema cannot be compiled. */
export type AjvValidate = (value: unknown) => ValidationOutcome

// `code` names the engine only for ajv's standalone code generation, which toolwire does not use at run time.
const UNTRUSTED_ENGINE = Object.assign(untrustedRegExp, { code: 'toolwire untrustedRegExp' })
const TRUSTED_ENGINE = Object.assign(trustedRegExp, { code: 'toolwire trustedRegExp' })

/** One ajv instance per dialect, so `$id`s of one server never collide with another's. */
export class AjvEngine {
  readonly #instances = new Map<Dialect, AjvInstance>()
  readonly #modules: AjvModules
  readonly #untrusted: boolean

  constructor(modules: AjvModules, untrusted: boolean) {
    this.#modules = modules
    this.#untrusted = untrusted
  }

  #ajv(dialect: Dialect): AjvInstance {
    let ajv = this.#instances.get(dialect)
    if (!ajv) {
      ajv = newAjv(this.#modules, dialect, this.#untrusted)
      this.#instances.set(dialect, ajv)
    }
    return ajv
  }

  /** Why a 2019-09 or draft-07 schema breaks its meta-schema, or undefined (2020-12 is checked elsewhere). */
  metaProblem(schema: Record<string, unknown>, dialect: Dialect): string | undefined {
    if (dialect === '2020-12') return undefined
    const ajv = metaChecker(this.#modules, dialect)
    return ajv.validateSchema(schema) ? undefined : ajv.errorsText(ajv.errors, { dataVar: 'schema' })
  }

  /** Generates the validator; throws for what only compilation finds (an unresolvable `$ref`, …). */
  compile(schema: Record<string, unknown>, dialect: Dialect): AjvValidate {
    const fn: ValidateFunction = this.#ajv(dialect).compile(schema)
    return (value) => (fn(value) ? { ok: true, value } : { ok: false, issues: formatIssues(fn.errors) })
  }
}

/**
 * One ajv per process and dialect checks 2019-09 and draft-07 schemas against their meta-schema: compiling
 * those meta-schemas is most of what a new ajv instance costs (2019-09: ~100 ms), which each compiler (each
 * server, each tool of a client) would otherwise pay again. Checking a schema registers nothing in it.
 */
const metaCheckers = new WeakMap<AjvModules, Map<Dialect, AjvInstance>>()

function metaChecker(modules: AjvModules, dialect: Exclude<Dialect, '2020-12'>): AjvInstance {
  let byDialect = metaCheckers.get(modules)
  if (!byDialect) metaCheckers.set(modules, (byDialect = new Map()))
  let ajv = byDialect.get(dialect)
  if (!ajv) byDialect.set(dialect, (ajv = newAjv(modules, dialect, false, true)))
  return ajv
}

/** An ajv for one dialect, with toolwire's formats, keywords and pattern engine. */
function newAjv(modules: AjvModules, dialect: Dialect, untrusted: boolean, metaChecks = false): AjvInstance {
  const { Ajv2020, Ajv2019, AjvDraft07, addFormats } = modules
  const options = {
    allErrors: true,
    strict: false,
    validateFormats: true,
    // `required` and `properties` look at the value's own keys only, as the interpreting validator does:
    // otherwise `{}` has a `constructor` and a `toString` (required met, a property checked as a function).
    ownProperties: true,
    code: { regExp: untrusted ? UNTRUSTED_ENGINE : TRUSTED_ENGINE },
    // Meta-schema checks run on the shared checker (metaChecker), once, before a schema is compiled;
    // the 2020-12 meta validator is generated ahead of time (json-schema.ts).
    validateSchema: metaChecks,
  } as const
  const ajv =
    dialect === '2020-12'
      ? new Ajv2020(options)
      : dialect === '2019-09'
        ? new Ajv2019(options)
        : new AjvDraft07(options)
  addFormats(ajv as InstanceType<AjvModules['AjvDraft07']>)
  for (const definition of TOOLWIRE_KEYWORDS) {
    ajv.removeKeyword(definition.keyword as string).addKeyword(definition)
  }
  return ajv
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
