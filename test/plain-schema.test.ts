/**
 * The quick verdict for plain schemas (src/schema/plain-schema.ts) never accepts what the full 2020-12 meta
 * validator rejects: on generated schemas mixing valid and invalid keyword values, "plain" implies "valid".
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { validate as metaValidator } from '../src/schema/meta-2020-12.generated.js'
import { SchemaCompiler } from '../src/schema/json-schema.js'
import { isPlainSchema } from '../src/schema/plain-schema.js'

const meta = metaValidator as (schema: unknown) => boolean

/** Values of every JSON kind, so each keyword gets right and wrong ones. */
const anyValue = fc.oneof(
  fc.constantFrom('object', 'string', 'number', 'integer', 'array', 'boolean', 'null', 'objekt', ''),
  fc.integer({ min: -3, max: 20 }),
  fc.constantFrom(0.5, -0.5, 0, 1e300, Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.constantFrom('a', 'b', 'string', 'object', 1), { maxLength: 3 }),
)

const KEYWORDS = [
  'type',
  'required',
  'title',
  'description',
  'format',
  'enum',
  'const',
  'default',
  'examples',
  'deprecated',
  'uniqueItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'multipleOf',
  'minLength',
  'maxItems',
  'minProperties',
  // Outside the quick path: these must always go to the full check.
  'pattern',
  'anyOf',
  '$ref',
  'x-mcp-header',
  'dependentRequired',
] as const

const entry = (tie: (key: string) => fc.Arbitrary<unknown>): fc.Arbitrary<[string, unknown]> =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...KEYWORDS), anyValue),
    fc.tuple(fc.constantFrom('items', 'additionalProperties'), tie('schema')),
    fc.tuple(
      fc.constant('properties'),
      fc.oneof(
        fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), tie('schema'), { maxKeys: 3 }),
        anyValue,
      ),
    ),
  )

/** Schemas of up to four keywords each, nested, so plain ones are common and every keyword is reached. */
const { schema } = fc.letrec<{ schema: unknown; node: unknown }>((tie) => ({
  schema: fc.oneof({ depthSize: 'small' }, fc.boolean(), tie('node'), anyValue),
  node: fc
    .uniqueArray(entry(tie), { maxLength: 4, selector: ([keyword]) => keyword })
    .map((entries) => Object.fromEntries(entries)),
}))

describe('plain schemas: the quick meta-schema verdict', () => {
  it('accepts only schemas the full 2020-12 meta validator accepts', () => {
    let plain = 0
    let rejected = 0
    fc.assert(
      fc.property(schema, (candidate) => {
        const quick = isPlainSchema(candidate)
        if (quick) plain++
        if (!meta(candidate)) rejected++
        return !quick || meta(candidate)
      }),
      { numRuns: 20_000 },
    )
    // Not vacuous: the generator reaches both sides.
    expect(plain).toBeGreaterThan(1_000)
    expect(rejected).toBeGreaterThan(1_000)
  })

  it('recognises the schemas tools usually have', () => {
    expect(
      isPlainSchema({
        type: 'object',
        properties: {
          text: { type: 'string', description: 'Text to echo', minLength: 1 },
          times: { type: 'integer', minimum: 1, maximum: 10 },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, uniqueItems: true },
        },
        required: ['text'],
        additionalProperties: false,
      }),
    ).toBe(true)
  })

  it('leaves everything else to the full check, whose messages stand', () => {
    expect(isPlainSchema({ type: 'objekt' })).toBe(false)
    expect(isPlainSchema({ required: ['a', 'a'] })).toBe(false)
    expect(isPlainSchema({ items: [{ type: 'string' }] })).toBe(false)
    expect(isPlainSchema({ pattern: '^a$' })).toBe(false)
    expect(isPlainSchema(Object.assign(Object.create({ inherited: 1 }) as object, { type: 'string' }))).toBe(
      false,
    )
    expect(() => new SchemaCompiler().compile({ type: 'object', required: ['a', 'a'] }, 'Tool t')).toThrow(
      /must NOT have duplicate items/,
    )
  })
})
