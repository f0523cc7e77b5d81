/**
 * The tool-name rule (server/tools §Tool Names): 1-128 characters of A-Z a-z 0-9 `_` `-` `.`. A server defines
 * its tools with it (`defineTool` refuses anything else); a client and the inspector use it to point out the
 * names of a server that does not: a bidi override (`evil\u202Etxt`), a full-width look-alike
 * (`ｒｅａｄ_file` for `read_file`), a path (`../etc`), spaces or control characters.
 */
import { unicodePattern } from './unicode-pattern.js'
import { escapeOf } from './visible-text.js'

/** The tool-name rule (server/tools §Tool Names): 1-128 characters from A-Z a-z 0-9 _ - . */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

const ALLOWED = /[A-Za-z0-9_.-]/u
/** Characters named in a problem, at most: a long hostile name must not make a long message. */
const MAX_LISTED = 8

/** How a character is named in a problem: `U+FF52 (ｒ)`, or only its code point when it is invisible. */
const describe = (char: string): string => {
  const code = `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
  return SHOWABLE().test(char) ? `${code} (${char})` : `${code} ${escapeOf(char)}`
}
/** Made on first use, not as a literal: see unicode-pattern.ts. */
const SHOWABLE = unicodePattern('^[\\p{L}\\p{N}\\p{P}\\p{S}]$', 'u')

/**
 * Why `name` breaks the tool-name rule, in words, or undefined when it follows it. The characters outside the
 * rule are each named once, by code point (look-alikes included: `U+FF52 (ｒ)`), the first few only.
 */
export function toolNameProblem(name: string): string | undefined {
  if (TOOL_NAME.test(name)) return undefined
  const problems: string[] = []
  if (name.length === 0) problems.push('it is empty')
  if (name.length > 128) problems.push(`it has ${name.length} characters (at most 128)`)
  const outside = [...new Set([...name].filter((char) => !ALLOWED.test(char)))]
  if (outside.length > 0) {
    const listed = outside.slice(0, MAX_LISTED).map(describe).join(', ')
    const more = outside.length > MAX_LISTED ? ` and ${outside.length - MAX_LISTED} more` : ''
    problems.push(`it has characters the rule does not allow: ${listed}${more}`)
  }
  return problems.join('; ')
}
