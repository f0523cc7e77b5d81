/**
 * Server-chosen text made safe to show, in a terminal or on a page. A server is untrusted: a raw ESC, C1
 * control, BEL or carriage return could retitle a terminal, plant a hyperlink or overwrite what the user just
 * read, and a bidi override (U+202E) or an invisible format character makes text read differently from what
 * it is, in a terminal and in a browser alike (`evil\u202Etxt.exe` shows as `evilexe.txt`).
 *
 * The character classes are the Unicode general categories themselves (`\p{Cc}` controls: C0, DEL and C1;
 * `\p{Cf}` format characters: bidi embeddings, overrides and isolates, marks, tags, invisible operators;
 * `\p{Zl}`/`\p{Zp}` line and paragraph separators), so nothing depends on a hand-kept list of code points.
 * Such characters are shown, not dropped, so the user sees that the server sent something unusual.
 */

import { unicodePattern } from './unicode-pattern.js'

/** Zero-width (non-)joiners shape emoji and many scripts and cannot move or hide text: they stay as they are. */
const JOINERS = new Set(['\u200c', '\u200d'])

// Made on first use, not as literals: see unicode-pattern.ts (a server loads this file and rarely needs them).
const UNSAFE = unicodePattern('[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]', 'u')
const UNSAFE_ALL = unicodePattern('[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]', 'gu')

/** `\x1b` for a code point up to U+00FF, `\u{202E}` above. */
export const escapeOf = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16).toUpperCase()}}`
}

export interface VisibleTextOptions {
  /** Keep line feeds and tabs (descriptions, result text); otherwise they are shown escaped too (names, titles). */
  readonly multiline?: boolean
}

/** True when `text` holds a control, format (bidi, invisible) or separator character other than a joiner. */
export function hasHiddenCharacters(text: string): boolean {
  return visibleText(text) !== text
}

/**
 * `text` with every control, format (bidi, invisible) and separator character replaced by a visible escape
 * such as `\x1b` or `\u{202E}`. Tab and line feed stay when `multiline`; a carriage return never does, as it
 * lets later text overwrite earlier text on the same line.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  if (!UNSAFE().test(text)) return text
  const multiline = options.multiline === true
  return text.replace(UNSAFE_ALL(), (char) =>
    JOINERS.has(char) || (multiline && (char === '\n' || char === '\t')) ? char : escapeOf(char),
  )
}

/**
 * `JSON.stringify(value, null, indent)` with every control, format and separator character inside strings
 * written as a `\uXXXX` escape. JSON.stringify escapes only U+0000–U+001F; DEL, C1 controls and bidi
 * overrides would otherwise be shown raw. The output is still valid JSON with the same meaning.
 */
export function visibleJson(value: unknown, indent = 2): string {
  const json = JSON.stringify(value, null, indent) as string | undefined
  if (json === undefined) return 'null'
  // Outside strings JSON holds only ASCII punctuation and the indentation's line feeds.
  return json.replace(UNSAFE_ALL(), (char) =>
    char === '\n'
      ? char
      : Array.from(
          { length: char.length },
          (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`,
        ).join(''),
  )
}
