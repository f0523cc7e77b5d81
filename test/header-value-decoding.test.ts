/**
 * `decodeHeaderValue` reads `Mcp-Name` and every `Mcp-Param-*` header (streamable-http §Value Encoding). It
 * tests its input with string methods; the reference below is the pattern-based reading it replaced, and
 * both must give the same value or the same refusal for any string.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeHeaderValue, encodeHeaderValue } from '../src/schema/x-mcp-header.js'

const SENTINEL = /^=\?base64\?(.*)\?=$/s
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

function referenceDecode(raw: string): string {
  const match = SENTINEL.exec(raw)
  if (!match) {
    if (/[^\x20-\x7e\t]/.test(raw))
      throw new Error('contains characters that are not allowed in a header value')
    return raw
  }
  const payload = match[1] ?? ''
  if (!BASE64.test(payload)) throw new Error('has an invalid Base64 payload')
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'))
  } catch {
    throw new Error('has a Base64 payload that is not valid UTF-8')
  }
}

const outcome = (decode: (raw: string) => string, raw: string): { value: string } | { error: string } => {
  try {
    return { value: decode(raw) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/** Strings near the sentinel's edges, plain values, controls, non-ASCII and real encodings. */
const headerLike = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('=', '?', 'b', 'a', 's', 'e', '6', '4', 'A', '+', '/', '\t', ' ', '\x7f', 'é'),
  }),
  fc
    .tuple(
      fc.constantFrom('', '=', '=?', '=?base64', '=?base64?', '=?BASE64?', ' =?base64?'),
      fc.string({ unit: fc.constantFrom('Q', 'U', 'F', '=', '?', '/', '+', 'g', '\n'), maxLength: 12 }),
      fc.constantFrom('', '?', '?=', '=', '?= ', '?=?='),
    )
    .map(([head, body, tail]) => head + body + tail),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeHeaderValue),
)

describe('decodeHeaderValue', () => {
  it('agrees with the pattern-based reading on any string', () => {
    fc.assert(
      fc.property(headerLike, (raw) => {
        expect(outcome(decodeHeaderValue, raw)).toEqual(outcome(referenceDecode, raw))
      }),
      { numRuns: 5_000 },
    )
  })

  it('reads the sentinel at its shortest, and refuses what only looks like it', () => {
    expect(decodeHeaderValue('=?base64??=')).toBe('')
    expect(decodeHeaderValue('=?base64?aMOp?=')).toBe('hé')
    expect(decodeHeaderValue('=?base64?=')).toBe('=?base64?=')
    expect(decodeHeaderValue('get_weather')).toBe('get_weather')
    expect(() => decodeHeaderValue('=?base64?!!?=')).toThrow(/invalid Base64/)
    expect(() => decodeHeaderValue('tab\tok, bell\x07 not')).toThrow(/not allowed/)
    expect(() => decodeHeaderValue('caf\u00e9')).toThrow(/not allowed/)
  })
})
