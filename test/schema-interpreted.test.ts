/** The interpreting validator (for runtimes without code generation) gives the same verdicts as ajv. */
import { describe, expect, it } from 'vitest'
import { SchemaCompiler, SchemaError } from '../src/schema/json-schema.js'

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    age: { type: 'integer', minimum: 0 },
    mail: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { enum: ['a', 'b'] } },
  },
  required: ['name'],
  additionalProperties: false,
}

describe('interpreted JSON Schema validation', () => {
  const ajv = new SchemaCompiler({ validator: 'ajv' })
  const interpreted = new SchemaCompiler({ validator: 'interpreted' })

  it('reports which validator it uses', () => {
    expect(ajv.validator).toBe('ajv')
    expect(interpreted.validator).toBe('interpreted')
    expect(new SchemaCompiler().validator).toBe('ajv') // node allows code generation
  })

  const cases: unknown[] = [
    { name: 'ok' },
    { name: 'ok', age: 3, mail: 'a@b.example', tags: ['a'] },
    { name: 'x' },
    { age: -1 },
    { name: 'ok', extra: 1 },
    { name: 'ok', mail: 'not-a-mail' },
    { name: 'ok', tags: ['c'] },
    'text',
    null,
  ]
  for (const [index, value] of cases.entries()) {
    it(`agrees with ajv on case ${index}`, () => {
      const a = ajv.compile(schema, 'case').validate(value)
      const b = interpreted.compile(schema, 'case').validate(value)
      expect(b.ok).toBe(a.ok)
      if (!b.ok) expect(b.issues.length).toBeGreaterThan(0)
    })
  }

  it('names the offending property in each issue', () => {
    const outcome = interpreted.compile(schema, 'case').validate({ age: 'old', extra: 1 })
    expect(outcome.ok).toBe(false)
    const text = outcome.ok ? '' : outcome.issues.join('\n')
    expect(text).toMatch(/^age: /m)
    expect(text).toMatch(/name/)
    expect(text).toMatch(/extra/)
  })

  it('still refuses invalid schemas and supports the older dialects', () => {
    expect(() => interpreted.compile({ type: 'nope' }, 'bad')).toThrow(SchemaError)
    const draft07 = interpreted.compile(
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'number' }] },
      'old',
    )
    expect(draft07.dialect).toBe('draft-07')
    expect(draft07.validate([1]).ok).toBe(true)
    expect(draft07.validate(['x']).ok).toBe(false)
  })

  it('answers a reference it cannot resolve with an issue, not a crash', () => {
    const compiled = interpreted.compile({ $ref: 'https://example.com/remote.json' }, 'remote')
    const outcome = compiled.validate({})
    expect(outcome.ok).toBe(false)
  })
})
