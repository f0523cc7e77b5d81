/** Accepts a tool's schema as any Standard Schema with JSON Schema export (zod v4, …) or as plain JSON Schema. */
import type {
  StandardIssue,
  StandardJSONSchemaConverter,
  StandardJSONSchemaV1,
  StandardResult,
  StandardSchemaV1,
} from './standard-spec.js'
import {
  type CompiledSchema,
  type SchemaCompiler,
  SchemaError,
  type ValidationOutcome,
} from './json-schema.js'

/** A schema library object that validates and can describe itself as JSON Schema. */
export type StandardSchemaWithJson<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output> &
  StandardJSONSchemaV1<Input, Output>

/** Either kind of schema a tool may declare. */
export type SchemaInput = StandardSchemaWithJson | Record<string, unknown>

/** The TypeScript type a schema produces: inferred for Standard Schemas, `T` (default: an object) otherwise. */
export type InferSchema<S, Fallback = Record<string, unknown>> =
  S extends StandardSchemaV1<unknown, infer Output>
    ? Output
    : S extends { readonly __type?: infer T }
      ? unknown extends T
        ? Fallback
        : T
      : Fallback

/** Brand for a plain JSON Schema whose instances the author promises have type `T`. */
export type JsonSchemaOf<T> = Record<string, unknown> & { readonly __type?: T }

/**
 * Types a plain JSON Schema: `jsonSchema<{ a: number }>({ type: 'object', ... })`.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   inputSchema: jsonSchema<{ a: number; b: number }>({
 *     type: 'object',
 *     properties: { a: { type: 'number' }, b: { type: 'number' } },
 *     required: ['a', 'b'],
 *   }),
 *   handler: ({ a, b }) => String(a + b),
 * })
 * ```
 */
export function jsonSchema<T>(schema: Record<string, unknown>): JsonSchemaOf<T> {
  return schema as JsonSchemaOf<T>
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === 'object' &&
    value !== null &&
    '~standard' in value &&
    typeof (value as StandardSchemaV1)['~standard']?.validate === 'function'
  )
}

/** A schema ready for use: the JSON Schema published on the wire and a validator. */
export interface PreparedSchema extends CompiledSchema {
  readonly jsonSchema: Record<string, unknown>
  /** True when validation may return a promise (some Standard Schema libraries validate asynchronously). */
  readonly async: boolean
  validateAsync(value: unknown, finite?: boolean): ValidationOutcome | Promise<ValidationOutcome>
  /** Checks a value against the published JSON Schema itself: what a client will check what it receives against. */
  checkPublished(value: unknown): ValidationOutcome
}

function issuesOf(issues: readonly StandardIssue[]): string[] {
  return issues.map((issue) => {
    const path = (issue.path ?? [])
      .map((segment) => (typeof segment === 'object' ? String(segment.key) : String(segment)))
      .join('.')
    return path ? `${path}: ${issue.message}` : issue.message
  })
}

function fromStandard(
  schema: StandardSchemaV1,
  direction: 'input' | 'output',
  label: string,
  compiler: SchemaCompiler,
): PreparedSchema {
  const converter = (schema['~standard'] as { jsonSchema?: StandardJSONSchemaConverter }).jsonSchema
  if (!converter) {
    throw new SchemaError(
      `${label}: this Standard Schema cannot export JSON Schema; pass a plain JSON Schema instead`,
    )
  }
  let published: Record<string, unknown>
  try {
    published = { ...converter[direction]({ target: 'draft-2020-12' }) }
  } catch (error) {
    throw new SchemaError(`${label}: JSON Schema export failed: ${(error as Error).message}`)
  }
  // Compiling the exported schema proves it is valid 2020-12 before anything is served.
  const compiled = compiler.compile(published, label)
  const validate = schema['~standard'].validate
  const settle = (result: StandardResult<unknown>): ValidationOutcome =>
    result.issues ? { ok: false, issues: issuesOf(result.issues) } : { ok: true, value: result.value }
  return {
    jsonSchema: published,
    dialect: compiled.dialect,
    json: compiled.json,
    async: true,
    checkPublished: compiled.validate,
    validate(value) {
      const result = validate(value)
      if (result instanceof Promise) throw new SchemaError(`${label}: schema validates asynchronously`)
      return settle(result)
    },
    validateAsync(value) {
      const result = validate(value)
      return result instanceof Promise ? result.then(settle) : settle(result)
    },
  }
}

/** Prepares a tool schema once, at definition time. */
export function prepareSchema(
  schema: SchemaInput,
  direction: 'input' | 'output',
  label: string,
  compiler: SchemaCompiler,
): PreparedSchema {
  if (isStandardSchema(schema)) return fromStandard(schema, direction, label, compiler)
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new SchemaError(`${label}: a schema must be a JSON Schema object or a Standard Schema`)
  }
  const compiled = compiler.compile(schema, label)
  // Spelled out, not spread: spreading the shared compiled object cost microseconds per tool, which a
  // thousand tools pay at start-up.
  return {
    dialect: compiled.dialect,
    json: compiled.json,
    validate: compiled.validate,
    validateAsync: compiled.validateAsync,
    jsonSchema: schema,
    async: false,
    checkPublished: compiled.validate,
  }
}
