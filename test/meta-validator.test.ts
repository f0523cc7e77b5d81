/** The generated 2020-12 meta-schema validator is current and judges schemas exactly as ajv itself does. */
import { readFileSync } from 'node:fs'
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { validate as generated } from '../src/schema/meta-2020-12.generated.js'
import { SchemaCompiler } from '../src/schema/json-schema.js'
// @ts-expect-error plain .mjs script without declarations
import { GENERATED_PATH, generateMetaValidator } from '../scripts/meta-validator.mjs'

const meta = generated as ((schema: unknown) => boolean) & { errors?: unknown[] | null }

function ajvVerdict(schema: unknown): { ok: boolean; errors: unknown } {
  const ajv = new Ajv2020Module.default({ allErrors: true, strict: false, validateFormats: true })
  addFormatsModule.default(ajv)
  const ok = ajv.validateSchema(schema as object) as boolean
  return { ok, errors: ok ? null : ajv.errors }
}

const SCHEMAS: unknown[] = [
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  { type: 'objekt' },
  { type: ['string', 'null'], minLength: 1 },
  { properties: { a: { minimum: 'x' } } },
  { required: 'a' },
  { $defs: { n: { type: 'integer', exclusiveMinimum: 0 } }, $ref: '#/$defs/n' },
  { $defs: { n: { type: 3 } } },
  { anyOf: [] },
  { oneOf: [{ const: 1 }, { enum: [2, 3] }] },
  { prefixItems: [{ type: 'string' }], items: false },
  { items: [{ type: 'string' }] },
  { $dynamicAnchor: 'meta', type: 'object' },
  { unevaluatedProperties: { type: 'string' }, dependentRequired: { a: ['b'] } },
  { dependentRequired: { a: 'b' } },
  { required: ['a', 'a'] },
  { type: ['string', 'string'] },
  { dependentRequired: { a: ['b', 'b'] } },
  { pattern: 7 },
  { format: 'email', maxLength: -1 },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
  { $id: 'urn:example:x', contentEncoding: 'base64', deprecated: 'yes' },
  true,
  false,
  7,
]

describe('generated 2020-12 meta-schema validator', () => {
  it('is what the installed ajv generates (run node scripts/meta-validator.mjs after an upgrade)', () => {
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(generateMetaValidator())
  })

  it.each(SCHEMAS.map((schema) => [JSON.stringify(schema), schema]))('agrees with ajv on %s', (_, schema) => {
    const expected = ajvVerdict(schema)
    const ok = meta(schema)
    expect(ok).toBe(expected.ok)
    expect(ok ? null : meta.errors).toEqual(expected.errors)
  })

  it('still makes the compiler reject invalid schemas with ajv-style messages', () => {
    const compiler = new SchemaCompiler()
    expect(() => compiler.compile({ type: 'objekt' }, 'T')).toThrow(
      /T: invalid JSON Schema: schema\/type must be equal to one of the allowed values/,
    )
    expect(compiler.compile({ type: 'object' }, 'T').validate({}).ok).toBe(true)
  })
})
