/**
 * The input guard's short walk: when the transport has checked a message's depth on its raw text, only
 * `arguments` are walked, and the tool's validator is told what that walk found about non-finite numbers.
 * Both shortcuts must give the full walk's and the full check's verdicts, on hostile messages too: `__proto__`
 * keys (written plainly or escaped), numbers JSON.parse turns into Infinity, deep nesting, brackets in strings.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scanInput } from '../../src/security/input.js'
import { nestedDeeperThan } from '../../src/wire/json-depth.js'
import { nonFiniteAt } from '../../src/schema/finite.js'
import { SchemaCompiler } from '../../src/schema/json-schema.js'

/** A JSON text, written by hand so it can hold what JSON.stringify never writes (`1e400`, escaped keys). */
type Text = string
const number = fc.oneof(
  fc.constantFrom('1e400', '-1e400', '1E+309', '2e308', '1e308', '-0', '0.5e-400'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constant('9'.repeat(310)),
)
const key = fc
  .oneof(
    fc.constantFrom('__proto__', 'arguments', 'constructor', 'a', '[', '{"x":1}'),
    fc.string({ maxLength: 6 }),
  )
  .chain((name) =>
    // The same key written plainly or with every character escaped: both parse to the same name.
    fc
      .boolean()
      .map((escaped) =>
        escaped
          ? `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
          : JSON.stringify(name),
      ),
  )
const value: fc.Arbitrary<Text> = fc.letrec<{ node: Text }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    number,
    fc.string({ unit: fc.constantFrom('[', '{', '"', '\\', 'a', '\u0000') }).map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'null'),
    fc.array(tie('node'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(key, tie('node')), { maxLength: 3 })
      .map((members) => `{${members.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  ),
})).node
const message = fc
  .tuple(value, fc.array(fc.tuple(key, value), { maxLength: 2 }))
  .map(
    ([args, extra]) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":${args}${extra
        .map(([k, v]) => `,${k}:${v}`)
        .join('')}}}`,
  )

const verdict = (params: unknown, maxDepth: number, depthChecked: boolean) => ({
  ...scanInput(params, { maxDepth }, depthChecked),
})

describe('the input guard walks only arguments when the text was checked', () => {
  it('finds what the full walk finds in every message the text check lets through', () => {
    const seen = { checked: 0, nonFinite: 0, protoKey: 0 }
    fc.assert(
      fc.property(message, fc.integer({ min: 1, max: 6 }), (text, maxDepth) => {
        const params = (JSON.parse(text) as { params: Record<string, unknown> }).params
        const full = verdict(params, maxDepth, false)
        // The transport refuses a message nested deeper than maxDepth + 1 (params are its second level) before
        // the guard sees it; the text may be deeper than the value (a repeated key keeps only its last value).
        if (nestedDeeperThan(text, maxDepth + 1)) return
        expect(full.problem).toBeUndefined()
        expect(verdict(params, maxDepth, true)).toEqual(full)
        const args = params.arguments
        const objectArgs = typeof args === 'object' && args !== null
        expect(full.nonFinite).toBe(objectArgs && nonFiniteAt(args) !== undefined)
        expect(full.protoKey).toBe(objectArgs && hasProtoKey(args))
        seen.checked++
        if (full.nonFinite) seen.nonFinite++
        if (full.protoKey) seen.protoKey++
      }),
      { numRuns: 2000 },
    )
    // The generator reaches the cases that matter, not only clean ones.
    expect(seen.nonFinite).toBeGreaterThan(20)
    expect(seen.protoKey).toBeGreaterThan(20)
    expect(seen.checked - seen.nonFinite - seen.protoKey).toBeGreaterThan(20)
  })

  it('sees NaN and Infinity put into arguments in process, where no text was checked', () => {
    const inProcess = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, 1.5, 'x', null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'arguments'), tie('node'), { maxKeys: 3 }),
      ),
    })).node
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b'), inProcess), (args) => {
        const scanned = verdict({ name: 't', arguments: args }, 64, false)
        expect(scanned.nonFinite).toBe(nonFiniteAt(args) !== undefined)
        expect(verdict({ name: 't', arguments: args }, 64, true)).toEqual(scanned)
      }),
      { numRuns: 1000 },
    )
  })

  it('lets the validator skip its own search only where it would have found nothing', () => {
    const compiler = new SchemaCompiler()
    const schema = compiler.compile(
      { type: 'object', properties: { a: { type: 'number' } }, additionalProperties: true },
      'schema',
    )
    fc.assert(
      fc.property(message, (text) => {
        const params = (JSON.parse(text) as { params: Record<string, unknown> }).params
        const args = params.arguments
        if (typeof args !== 'object' || args === null || Array.isArray(args)) return
        const scanned = verdict(params, 64, true)
        const checked = schema.validate(args)
        if (scanned.nonFinite) expect(checked.ok).toBe(false)
        else expect(schema.validate(args, true)).toEqual(checked)
      }),
      { numRuns: 1000 },
    )
  })
})

/** Whether any object in `value` (itself included) has an own `__proto__` key. */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (Object.hasOwn(value, '__proto__')) return true
  return Object.values(value).some(hasProtoKey)
}
