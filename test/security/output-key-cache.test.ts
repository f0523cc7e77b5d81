/**
 * One verdict: the output guard remembers the encoded size of clean object keys (`cleanKeyLength`) instead
 * of scanning each key of each result again. Whatever the cache holds (cold, warm, full of hostile keys),
 * `cleanValue` must answer exactly as the walk that scanned every key did: the same cleaned value, the same
 * references kept or copied, the same byte count. The reference below is that walk, as it was written before
 * the cache.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  cleanEncodedLength,
  cleanKeyLength,
  cleanValue,
  encodedLength,
  jsonBytes,
  type Redact,
  type Tally,
} from '../../src/security/output-guard.js'
import { stripControls } from '../../src/security/sanitize.js'
import { createRedactor } from '../../src/security/secrets.js'

const PROTOCOL_FIELDS = new Set([
  'type',
  'mimeType',
  'uri',
  'uriTemplate',
  'name',
  'role',
  'annotations',
  'resultType',
  'progressToken',
  'requestState',
  'cursor',
  'nextCursor',
  'taskId',
  'status',
  'level',
  'logger',
  'cacheScope',
  'icons',
  'blob',
  'jsonrpc',
  'method',
  'id',
])
const enum Field {
  Default,
  Protocol,
  Free,
}
function fieldOf(record: Record<string, unknown>, key: string): Field {
  if (key === 'structuredContent') return Field.Free
  if (key === 'data') return record.type === 'image' || record.type === 'audio' ? Field.Protocol : Field.Free
  return PROTOCOL_FIELDS.has(key) ? Field.Protocol : Field.Default
}
const own = Object.prototype.hasOwnProperty

/** The walk before the key cache, every key scanned with `cleanEncodedLength`. */
function referenceClean(value: unknown, tally: Tally, redact?: Redact, free = false): unknown {
  switch (typeof value) {
    case 'string': {
      if (redact === undefined) {
        const bytes = cleanEncodedLength(value)
        if (bytes >= 0) {
          tally.n += bytes
          return value
        }
      }
      let text = stripControls(value)
      if (redact) text = redact(text)
      tally.n += encodedLength(text)
      return text
    }
    case 'number':
      tally.n += Number.isFinite(value) ? String(value).length : 4
      return value
    case 'boolean':
      tally.n += value ? 4 : 5
      return value
    case 'object':
      break
    default:
      return value
  }
  if (value === null) {
    tally.n += 4
    return value
  }
  if (Array.isArray(value)) {
    tally.n += value.length > 0 ? value.length + 1 : 2
    let copy: unknown[] | undefined
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (item === undefined) tally.n += 4
      const cleaned = referenceClean(item, tally, redact, free)
      if (cleaned !== item) (copy ??= [...(value as unknown[])])[index] = cleaned
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  let members = 0
  for (const key in record) {
    if (!own.call(record, key)) continue
    const item = record[key]
    if (item === undefined) continue
    members++
    let cleanKey = key
    let keyBytes = cleanEncodedLength(key)
    if (keyBytes < 0) {
      cleanKey = stripControls(key)
      keyBytes = encodedLength(cleanKey)
    }
    tally.n += keyBytes + 1
    const field = redact === undefined || free ? Field.Default : fieldOf(record, key)
    const cleaned =
      field === Field.Default
        ? referenceClean(item, tally, redact, free)
        : referenceClean(item, tally, field === Field.Free ? redact : undefined, field === Field.Free)
    if (cleanKey === key && cleaned === item) continue
    copy ??= { ...record }
    if (cleanKey !== key) delete copy[key]
    copy[cleanKey] = cleaned
  }
  tally.n += members > 0 ? members + 1 : 2
  return copy ?? value
}

/** Where the two walks' outputs differ in which parts were kept by reference. */
function sameSharing(a: unknown, b: unknown, input: unknown): void {
  expect(a === input).toBe(b === input)
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return
  if (typeof input !== 'object' || input === null) return
  for (const key of Object.keys(a)) {
    if (own.call(input, key))
      sameSharing(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        (input as Record<string, unknown>)[key],
      )
  }
}

const SECRETS = ['sk-live-0123456789abcdef', 'hunter2-password', '"quoted\\secret"']
const redactor = createRedactor(SECRETS)

// Code units from every range the scan names (C0, DEL, C1, bidi, annotation marks, tag halves, lone
// surrogates, quote and backslash), plain letters, and whole secrets, so keys and strings meet each often.
const edges = [
  0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x1b, 0x1f, 0x20, 0x22, 0x5c, 0x7e, 0x7f, 0x80, 0x9b, 0x9f, 0xa0, 0x7ff,
  0x800, 0x202a, 0x202e, 0x2066, 0x2069, 0xd800, 0xdb40, 0xdbff, 0xdc00, 0xdc41, 0xdfff, 0xfff9, 0xfffb,
  0xffff,
].map((code) => String.fromCharCode(code))
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_'.split('')) },
  { weight: 2, arbitrary: fc.constantFrom(...edges) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.constantFrom(...SECRETS, '\udb40\udc41', '\r\n', '\x1b[31m') },
)
const text = fc.string({ unit, maxLength: 20 })
const protocolKey = fc.constantFrom(
  ...PROTOCOL_FIELDS,
  'structuredContent',
  'data',
  'content',
  'text',
  '_meta',
)
const key = fc.oneof({ weight: 3, arbitrary: text }, { weight: 1, arbitrary: protocolKey })
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(key, tie('json'), { maxKeys: 6 }),
  ),
}))

function agree(value: unknown, redact: Redact | undefined): void {
  const expectedTally = { n: 0 }
  const expected = referenceClean(value, expectedTally, redact)
  // Twice: the first call may fill the cache, the second reads from it.
  for (let pass = 0; pass < 2; pass++) {
    const tally = { n: 0 }
    const cleaned = cleanValue(value, tally, redact)
    expect(tally.n).toBe(expectedTally.n)
    expect(cleaned).toStrictEqual(expected)
    expect(JSON.stringify(cleaned)).toBe(JSON.stringify(expected))
    sameSharing(cleaned, expected, value)
  }
}

describe('the output guard with its key cache gives the verdict of the full walk', () => {
  it('answers for a key what the scan answers, for any key', () => {
    fc.assert(
      fc.property(key, (name) => {
        const scanned = cleanEncodedLength(name)
        expect(cleanKeyLength(name)).toBe(scanned)
        expect(cleanKeyLength(name)).toBe(scanned)
      }),
      { numRuns: 3000 },
    )
  })

  it('cleans, keeps, copies and counts every random and hostile value as the full walk did', () => {
    fc.assert(
      fc.property(json, (value) => {
        agree(value, undefined)
        agree(value, redactor)
        expect(jsonBytes(value)).toBe(jsonBytes(value))
      }),
      { numRuns: 3000 },
    )
  })

  it('agrees on tool results whose keys and strings carry escapes, bidi overrides and secrets', () => {
    const block = fc.record({
      type: fc.constantFrom('text', 'resource_link', 'image'),
      text,
      _meta: fc.dictionary(key, json, { maxKeys: 3 }),
    })
    const result = fc.record(
      {
        content: fc.array(block, { maxLength: 4 }),
        structuredContent: fc.dictionary(key, json, { maxKeys: 5 }),
        isError: fc.boolean(),
        _meta: fc.dictionary(key, json, { maxKeys: 3 }),
      },
      { requiredKeys: ['content'] },
    )
    fc.assert(
      fc.property(result, (value) => {
        agree(value, undefined)
        agree(value, redactor)
      }),
      { numRuns: 800 },
    )
  })

  it('agrees on deep nesting, long keys, huge strings and a cache already full of other keys', () => {
    // Fill the cache past its bound with keys no result below uses: later keys are scanned, not cached.
    for (let index = 0; index < 3000; index++) cleanValue({ [`filler_${index}`]: index })
    let deep: unknown = { 'leaf\u202e': 'x\x1b[2Jy', ok: 1 }
    for (let depth = 0; depth < 200; depth++) deep = { [`level${depth % 7}`]: [deep, 'plain'] }
    const longKey = 'k'.repeat(100)
    const huge = 'lorem ipsum '.repeat(100_000)
    const values: unknown[] = [
      deep,
      { [longKey]: huge, [`${longKey}\x07`]: `${huge}\u0000` },
      { content: [{ type: 'text', text: huge }], structuredContent: { [longKey]: SECRETS[0] } },
      { 'new\u2066key': 1, 'lone\udc00': '\ud800', 'pair\ud83d\ude00': 'ok' },
    ]
    for (const value of values) {
      agree(value, undefined)
      agree(value, redactor)
    }
    fc.assert(
      fc.property(json, (value) => agree(value, undefined)),
      { numRuns: 500 },
    )
  })
})

describe('the output guard counts numbers and its own keys as JSON.stringify writes them', () => {
  const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value))

  it('counts integers at every digit boundary, negative, -0 and past the counted range', () => {
    const edges = [
      0,
      -0,
      1e9,
      -1e9,
      2 ** 31,
      2 ** 53,
      -(2 ** 53),
      1e21,
      0.5,
      -0.5,
      1e-7,
      NaN,
      Infinity,
      -Infinity,
    ]
    for (let power = 1; power <= 1e9; power *= 10)
      edges.push(power - 1, power, -power, -(power - 1), power + 1)
    for (const value of edges) {
      expect(jsonBytes(value), String(value)).toBe(bytes(value)) // NaN and ±Infinity: `null`
      expect(jsonBytes({ n: value }), String(value)).toBe(bytes({ n: value }))
    }
  })

  it('counts any integer or double as the encoding does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -2e9, max: 2e9 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
        (value) => {
          expect(jsonBytes([value])).toBe(bytes([value]))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('answers the keys of a result by comparison exactly as the scan does', () => {
    for (const key of ['type', 'text', 'content', 'structuredContent', 'isError', '_meta'])
      expect(cleanKeyLength(key)).toBe(cleanEncodedLength(key))
    const result = {
      content: [{ type: 'text', text: 'x' }],
      structuredContent: { sum: 5 },
      isError: false,
      _meta: {},
    }
    expect(jsonBytes(result)).toBe(bytes(result))
  })
})
