import { describe, expect, it } from 'vitest'
import { tokenize } from '../src/features/tools/bm25.js'
import { toolNameProblem } from '../src/wire/tool-name.js'
import { unicodePattern } from '../src/wire/unicode-pattern.js'
import { hasHiddenCharacters, visibleJson, visibleText } from '../src/wire/visible-text.js'

describe('patterns made on first use', () => {
  it('makes one regular expression, the first time it is asked for', () => {
    const letters = unicodePattern('\\p{L}+', 'gu')
    const first = letters()
    expect(letters()).toBe(first)
    expect('ab 12 ÿé'.match(first)).toEqual(['ab', 'ÿé'])
  })

  it('keeps the Unicode categories of the texts they judge', () => {
    // Controls, a bidi override, a line separator and a format character are shown; a joiner and text stay.
    expect(visibleText('evil\u202Etxt.exe')).toBe('evil\\u{202E}txt.exe')
    expect(visibleText('a\u0007b\u2028c\u00ADd')).toBe('a\\x07b\\u{2028}c\\xadd')
    expect(visibleText('👩\u200d💻 ok\tyes\n', { multiline: true })).toBe('👩\u200d💻 ok\tyes\n')
    expect(hasHiddenCharacters('plain text')).toBe(false)
    expect(visibleJson({ a: 'x\u202Ey' }, 0)).toBe('{"a":"x\\u202ey"}')
    // Two calls in a row: a global pattern shared between calls must not carry state from the last one.
    expect(visibleText('\u0007\u0007')).toBe('\\x07\\x07')
    expect(visibleText('\u0007\u0007')).toBe('\\x07\\x07')
  })

  it('splits words for tool search at case, digit and script boundaries', () => {
    expect(tokenize('notes.createNote v2')).toEqual(['notes', 'create', 'note', 'v', '2'])
    expect(tokenize('getHTTPResponse_Ünïcode42')).toEqual(['get', 'http', 'response', 'ünïcode', '42'])
  })

  it('names a look-alike character by code point and shows it, and an invisible one escaped', () => {
    expect(toolNameProblem('ｒead')).toContain('U+FF52 (ｒ)')
    expect(toolNameProblem('a\u202Eb')).toContain('U+202E \\u{202E}')
  })
})
