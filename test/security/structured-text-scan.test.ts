/**
 * A result of structured content alone is checked by one scan of its JSON text (security/json-text-scan.ts)
 * instead of the output guard's walk of the value and its count of the text copy. Both must give one verdict:
 * the scan declines exactly when some string or key would be cleaned, and otherwise gives the walk's byte
 * counts; through a real server, a bare value and the same value as an explicit result (which takes the walk)
 * get the same answer, cleaned, copied, truncated or refused alike.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineServer, defineTool, toolResult } from '../../src/index.js'
import { cleanEncodedLength, cleanValue, jsonBytes } from '../../src/security/output-guard.js'
import { scanJsonText } from '../../src/security/json-text-scan.js'
import { resultOf } from '../helpers/http.js'
import { callTool, live, type Live } from '../helpers/live.js'

/** Code units that each take a different branch of the scan and of the guard's own check. */
const unit = fc.constantFrom(
  'a',
  ' ',
  '"',
  '\\',
  '/',
  '\t',
  '\n',
  '\r',
  '\b',
  '\f',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0080',
  '\u009b',
  '\u00a0',
  'é',
  '\u07ff',
  '\u0800',
  '\u202e',
  '\u2066',
  '\ufff9',
  '\ufffc',
  '€',
  '\ud83d\ude00', // a pair
  '\ud83d', // a lone first half
  '\ude00', // a lone second half
  '\udb40\udc41', // a tag character
  '\udb40', // its first half alone
  'u',
  '0',
)
const text = fc.string({ unit, maxLength: 8 })
const value = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(true, false, null, -0),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(text, tie('node'), { maxKeys: 3 }),
  ),
})).node

/** Whether the guard would clean anything in `value`: a key or string that its own check refuses. */
function hasSomethingToClean(value: unknown): boolean {
  if (typeof value === 'string') return cleanEncodedLength(value) < 0
  if (Array.isArray(value)) return value.some(hasSomethingToClean)
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).some(
      ([key, item]) => cleanEncodedLength(key) < 0 || hasSomethingToClean(item),
    )
  return false
}

describe('the scan of a structured value’s JSON text', () => {
  it('declines exactly when the walk would clean, and otherwise counts what the walk and the wire count', () => {
    fc.assert(
      fc.property(value, (structured) => {
        const json = JSON.stringify(structured)
        const scanned = scanJsonText(json)
        expect(scanned === undefined).toBe(hasSomethingToClean(structured))
        if (scanned === undefined) return
        const tally = { n: 0 }
        expect(cleanValue(structured, tally)).toBe(structured)
        expect(scanned.valueBytes).toBe(tally.n)
        expect(scanned.valueBytes).toBe(Buffer.byteLength(json))
        expect(scanned.textBytes).toBe(jsonBytes(json))
        expect(scanned.textBytes).toBe(Buffer.byteLength(JSON.stringify(json)))
      }),
      { numRuns: 3000 },
    )
  })

  it('finds each thing the guard strips in a string and in a key', () => {
    for (const dirty of [
      '\b',
      '\f',
      '\r',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u202a',
      '\u2069',
      '\ufffb',
      '\udb40',
      '\udb40\udc20',
    ]) {
      expect(scanJsonText(JSON.stringify({ a: `x${dirty}y` }))).toBeUndefined()
      expect(scanJsonText(JSON.stringify({ [`k${dirty}`]: 1 }))).toBeUndefined()
    }
    // What looks like an escape but is text: a backslash written out, then `u0000` or `r`.
    expect(scanJsonText(JSON.stringify({ a: '\\u0000 \\r \\udb40' }))).toEqual({
      valueBytes: Buffer.byteLength(JSON.stringify({ a: '\\u0000 \\r \\udb40' })),
      textBytes: Buffer.byteLength(JSON.stringify(JSON.stringify({ a: '\\u0000 \\r \\udb40' }))),
    })
  })
})

describe('a bare structured value and the same value as an explicit result', () => {
  let current: Record<string, unknown> = {}
  let server: Live
  beforeAll(async () => {
    server = await live(
      defineServer({
        name: 'scan',
        version: '1',
        tools: [
          defineTool({ name: 'bare', handler: () => current }),
          defineTool({
            name: 'explicit',
            handler: () => toolResult({ content: [], structuredContent: current }),
          }),
        ],
        // A small cap, so that sizes near it are decided by both counts.
        security: { secretsFromEnv: false, rateLimit: false, output: { maxBytes: 160 } },
      }),
    )
  })
  afterAll(() => server.close())

  it('get the same answer: cleaned, copied as text, refused over the cap with the same size', async () => {
    const record = fc.dictionary(text, value, { minKeys: 1, maxKeys: 4 })
    await fc.assert(
      fc.asyncProperty(record, async (structured) => {
        current = structured
        const bare = resultOf(await callTool(server, 'bare'))
        const explicit = resultOf(await callTool(server, 'explicit'))
        // A refusal names its tool; everything else, the byte count in it included, must be the same.
        expect(JSON.stringify(bare).replaceAll('Tool bare ', 'Tool ')).toBe(
          JSON.stringify(explicit).replaceAll('Tool explicit ', 'Tool '),
        )
      }),
      { numRuns: 150 },
    )
  })
})
