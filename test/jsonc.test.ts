/**
 * The command line's JSON-with-comments reader (`.vscode/mcp.json`) and the JSON equality the generated
 * meta-schema validator uses: each against JSON.parse / the JSON Schema definition, with the inputs that
 * break naive versions (comment markers and commas inside strings, escaped quotes, unterminated comments).
 */
import { describe, expect, it } from 'vitest'
import { parseJsonc } from '../src/cli/client/jsonc.js'
import { jsonEqual } from '../src/schema/json-equal.js'

describe('parseJsonc', () => {
  it('reads comments and trailing commas as VS Code does', () => {
    const text = `\uFEFF{
      // a line comment
      "servers": { /* a block
        comment */ "a": { "args": ["x", "y",], }, },
    }`
    expect(parseJsonc(text)).toEqual({ servers: { a: { args: ['x', 'y'] } } })
  })

  it('leaves strings alone: comment markers, commas before brackets, escaped quotes', () => {
    const value = { url: 'http://h/p//q', glob: 'a/*b*/c', list: ',]', quote: 'say "hi", }', slash: '\\' }
    expect(parseJsonc(JSON.stringify(value, null, 2))).toEqual(value)
  })

  it('refuses what is not JSON with comments, at the position it has in the file', () => {
    expect(() => parseJsonc('{ "a": 1 /* never closed')).toThrow(/Unterminated comment at position 9/)
    expect(() => parseJsonc('{ "a": 1,, }')).toThrow(SyntaxError)
    expect(() => parseJsonc("{ 'a': 1 }")).toThrow(SyntaxError)
    expect(() => parseJsonc('[1, 2] // fine\n3')).toThrow(SyntaxError)
    // The comment becomes spaces, so JSON.parse's position is the file's.
    expect(() => parseJsonc('/* 1234 */ {x}')).toThrow(/position 12/)
  })
})

describe('jsonEqual', () => {
  it('compares JSON values by type and value, objects whatever their member order', () => {
    expect(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true)
    expect(jsonEqual(1, 1.0)).toBe(true)
    expect(jsonEqual([], {})).toBe(false)
    expect(jsonEqual({}, [])).toBe(false)
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false)
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual([1, 2], [2, 1])).toBe(false)
    expect(jsonEqual('1', 1)).toBe(false)
    expect(jsonEqual(null, {})).toBe(false)
    expect(jsonEqual(false, 0)).toBe(false)
  })
})
