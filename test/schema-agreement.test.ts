/**
 * Values ajv and the interpreting validator used to judge differently (found by the differential property
 * test, test/schema-differential.test.ts): each now gets one verdict from both, and from the client's
 * untrusted compiler.
 */
import { describe, expect, it } from 'vitest'
import { AJV_MODULES } from '../src/schema/ajv-static.js'
import { SchemaCompiler } from '../src/schema/json-schema.js'

const compilers = {
  ajv: new SchemaCompiler({ validator: 'ajv' }),
  interpreted: new SchemaCompiler({ validator: 'interpreted' }),
  untrusted: new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }),
}

const property = (schema: Record<string, unknown>) => ({ type: 'object', properties: { v: schema } })

/** [what, schema, value (as JSON text, so own keys are own), verdict] */
const CASES: [string, Record<string, unknown>, string, boolean][] = [
  ['a required key only inherited', { type: 'object', required: ['constructor'] }, '{}', false],
  [
    '`constructor` declared but absent',
    { type: 'object', properties: { constructor: { type: 'string' } } },
    '{}',
    true,
  ],
  [
    '`toString` declared but absent',
    { type: 'object', properties: { toString: { type: 'string' } } },
    '{}',
    true,
  ],
  ['a decimal multiple', property({ multipleOf: 0.1 }), '{"v":0.3}', true],
  ['another decimal multiple', property({ multipleOf: 0.01 }), '{"v":1.13}', true],
  ['a large non-multiple', property({ multipleOf: 3 }), '{"v":1e300}', false],
  ['a non-multiple', property({ multipleOf: 2 }), '{"v":3}', false],
  ['const against an own `toString`', property({ const: { x: 1 } }), '{"v":{"toString":0}}', false],
  ['enum against an own `valueOf`', property({ enum: [{ x: 1 }, 'a'] }), '{"v":{"valueOf":1}}', false],
  ['enum, equal object', property({ enum: [{ x: 1, y: [2] }] }), '{"v":{"y":[2],"x":1}}', true],
  [
    'uniqueItems with own `toString`s',
    property({ uniqueItems: true }),
    '{"v":[{"toString":1},{"toString":1}]}',
    false,
  ],
  ['uniqueItems, 1 and "1"', property({ uniqueItems: true }), '{"v":[1,"1"]}', true],
  ['email without a dot', property({ type: 'string', format: 'email' }), '{"v":"a@b"}', false],
  ['ipv4 with a leading zero', property({ type: 'string', format: 'ipv4' }), '{"v":"01.1.1.1"}', false],
  [
    '`[\\S]` against a no-break space',
    property({ type: 'string', pattern: '^[\\S]$' }),
    '{"v":"\\u00a0"}',
    false,
  ],
  ['`[\\Sa]` against an emoji', property({ type: 'string', pattern: '^[\\Sa]$' }), '{"v":"😀"}', true],
  [
    'an escaped surrogate pair',
    property({ type: 'string', pattern: '^\\uD83D\\uDE00$' }),
    '{"v":"😀"}',
    true,
  ],
]

describe('one verdict whichever validator checks', () => {
  for (const [what, schema, text, verdict] of CASES) {
    it(`${what}: ${verdict ? 'valid' : 'invalid'}`, () => {
      const value: unknown = JSON.parse(text)
      for (const [name, compiler] of Object.entries(compilers)) {
        const outcome = compiler.compile(schema, what).validate(value)
        expect({ name, ok: outcome.ok }).toEqual({ name, ok: verdict })
      }
    })
  }

  it('words the replaced keywords as ajv does', () => {
    const validate = (schema: Record<string, unknown>, value: unknown) =>
      compilers.ajv.compile(property(schema), 'words').validate({ v: value })
    expect(validate({ multipleOf: 2 }, 3)).toEqual({ ok: false, issues: ['v: must be multiple of 2'] })
    expect(validate({ enum: ['a', 1] }, 'b')).toEqual({ ok: false, issues: ['v: must be one of ["a",1]'] })
    expect(validate({ const: 'a' }, 'b')).toEqual({ ok: false, issues: ['v: must be equal to constant'] })
    expect(validate({ uniqueItems: true }, [1, 2, 1])).toEqual({
      ok: false,
      issues: ['v: must NOT have duplicate items (items ## 0 and 2 are identical)'],
    })
  })
})
