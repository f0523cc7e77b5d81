/**
 * The validator behind one compiled schema, built on first use. ajv generates the fastest validators but
 * costs most of a small server's start-up to load (engines.ts); the interpreting validator
 * (@cfworker/json-schema, same drafts) is ready at once. So a schema whose checks the interpreter runs
 * safely is checked by it until ajv has loaded in the background, and by ajv from then on; a value the
 * interpreter rejects is judged by ajv right away where ajv can be loaded synchronously, so rejections
 * always read the same.
 */
import type { AjvEngine } from './ajv-engine.js'
import { lazyAjv, lazyRegExp } from './engines.js'
import { interpretedValidator, lazyInterpreter } from './interpreted.js'
import { type Dialect, SchemaError, type ValidationOutcome } from './json-schema.js'
import type { RegExpLike } from './regexp.js'

type Validate = (value: unknown) => ValidationOutcome

export interface ValidatorPlan {
  /** Which engine the compiler chose (`auto` already resolved). */
  readonly engine: 'ajv' | 'interpreted'
  /** Compile with ajv now, at definition, where ajv can be loaded synchronously. */
  readonly eager: boolean
  /** The interpreter may check values while ajv loads (no native regular expression in the schema). */
  readonly interimAllowed: boolean
  /** The compiler's ajv engine: loading ajv synchronously if `now`, else only if ajv is loaded already. */
  readonly ajv: (now: boolean) => AjvEngine | undefined
  /** The interpreting validator may judge the schema when ajv's compiler overflows its stack on it. */
  readonly interpreterFallback?: boolean
  /** A peer's patterns on RE2: the interpreting validator runs these instead of native ones. */
  readonly linearPatterns?: ReadonlyMap<string, RegExpLike>
}

export class SchemaValidator {
  readonly #schema: Record<string, unknown>
  readonly #dialect: Dialect
  readonly #plan: ValidatorPlan
  #final: Validate | undefined
  #interim: Validate | undefined

  constructor(schema: Record<string, unknown>, dialect: Dialect, plan: ValidatorPlan) {
    this.#schema = schema
    this.#dialect = dialect
    this.#plan = plan
    if (plan.engine === 'ajv' && plan.eager) {
      const engine = plan.ajv(true)
      if (engine) {
        const problem = engine.metaProblem(schema, dialect)
        if (problem) throw new SchemaError(problem)
        try {
          this.#final = engine.compile(schema, dialect)
        } catch (error) {
          // ajv's compiler recurses without end through some nests of embedded `$id`s and relative `$ref`s
          // (the official suite's "refs with relative uris and defs"); the interpreting validator resolves them.
          const interpreter =
            error instanceof RangeError && plan.interpreterFallback === true ? this.#interpreter() : undefined
          if (!interpreter) throw error
          this.#final = interpreter
        }
      }
    }
  }

  validate(value: unknown): ValidationOutcome {
    const final = this.#final
    return final ? final(value) : this.#firstUses(value)
  }

  /** As `validate`, but waits for the interpreting validator when it is still loading (at start-up). */
  validateAsync(value: unknown): ValidationOutcome | Promise<ValidationOutcome> {
    const final = this.#final
    if (final) return final(value)
    const waits =
      (this.#plan.engine === 'interpreted' || this.#plan.interimAllowed) &&
      lazyInterpreter.loaded() === undefined &&
      (this.#plan.engine === 'interpreted' || this.#plan.ajv(false) === undefined)
    if (!waits) return this.#firstUses(value)
    const retry = (): ValidationOutcome => this.validate(value)
    return lazyInterpreter.load().then(retry, retry)
  }

  #firstUses(value: unknown): ValidationOutcome {
    if (this.#plan.engine === 'interpreted') {
      const interpreter = this.#interpreter()
      if (!interpreter) return NOT_READY
      return (this.#final = interpreter)(value)
    }
    const engine = this.#plan.ajv(!this.#plan.interimAllowed)
    if (engine) return this.#adopt(engine)(value)
    void lazyRegExp.soon().then(() => lazyAjv.soon())
    const outcome = this.#interpreter()?.(value)
    if (outcome?.ok) return outcome
    const now = this.#plan.ajv(true)
    return now ? this.#adopt(now)(value) : (outcome ?? NOT_READY)
  }

  /** The interpreting validator, where its module is loaded or can be loaded synchronously. */
  #interpreter(): Validate | undefined {
    if (this.#interim) return this.#interim
    const Validator = lazyInterpreter.now()
    if (Validator)
      this.#interim = interpretedValidator(Validator, this.#schema, this.#dialect, this.#plan.linearPatterns)
    return this.#interim
  }

  /** Switches to ajv; a schema ajv cannot compile here (code generation refused) stays interpreted. */
  #adopt(engine: AjvEngine): Validate {
    try {
      this.#final = engine.compile(this.#schema, this.#dialect)
    } catch {
      const interpreter = this.#interpreter()
      if (!interpreter) return () => NOT_READY
      this.#final = interpreter
    }
    return this.#final
  }
}

/**
 * Only where neither validator can be loaded synchronously (a Worker) and a value is checked synchronously
 * before any asynchronous check has waited for the interpreting validator: not at all in toolwire's own
 * request path, which checks asynchronously.
 */
const NOT_READY: ValidationOutcome = Object.freeze({
  ok: false,
  issues: ['the JSON Schema validator is still loading; send the request again'],
})
