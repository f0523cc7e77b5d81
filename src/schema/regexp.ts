/**
 * The regular-expression engines behind JSON Schema `pattern` and `patternProperties`. ECMAScript regular
 * expressions backtrack: `^(a+)+$` against 34 characters runs for minutes, and no timeout can interrupt a
 * synchronous match. Patterns therefore run on RE2 (the `re2js` port), whose matching time is linear in the
 * input. ECMAScript syntax RE2 lacks is translated (`\uXXXX`, `\u{X}`, and `\s` / `.` keep their ECMAScript
 * meaning); what cannot be translated (lookaround, backreferences) is allowed only in trusted schemas and
 * only when `safe-regex2` finds no nested quantifier that could backtrack catastrophically.
 */
import type { RE2JS } from 're2js'
import { lazyRegExp } from './engines.js'

/** The pattern engines, loaded on the first pattern (engines.ts). */
export interface RegExpModules {
  readonly RE2JS: typeof RE2JS
  readonly safeRegex: (pattern: string) => boolean
}

/**
 * What ajv needs of a compiled pattern (`code.regExp`). ajv shares compiled patterns within an instance by
 * their string form (`usePattern` keys its scope by `toString()`), so the string must name the pattern: with
 * an object's default `[object Object]`, every pattern a server compiled ran as the first one.
 */
export interface RegExpLike {
  test(text: string): boolean
  toString(): string
}

export class UnsafePatternError extends Error {
  override readonly name = 'UnsafePatternError'
}

/** ECMAScript `\s` (WhiteSpace and LineTerminator), as RE2 class members. */
const SPACE =
  '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}'
/** ECMAScript `\S`: everything else, as ranges (RE2's own `\S` is ASCII, and a class cannot be negated inside one). */
const NOT_SPACE =
  '\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}' +
  '\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}'
/** ECMAScript `.` without the `s` flag: anything but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]'

/** Rewrites the ECMAScript-only parts of `pattern` into RE2 syntax with the same meaning. */
function toRe2(pattern: string): string {
  let out = ''
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string
    if (char === '\\') {
      const next = pattern[i + 1] ?? ''
      if (next === 'u') {
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 2))
        const plain = /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2))
        if (braced) {
          out += `\\x{${braced[1] as string}}`
          i += 1 + braced[0].length
          continue
        }
        if (plain) {
          // With the `u` flag an escaped surrogate pair is one code point; RE2 would read two.
          const code = Number.parseInt(plain[0], 16)
          const low = /^\\u(d[c-f][0-9a-f]{2})/i.exec(pattern.slice(i + 6))
          if (code >= 0xd800 && code <= 0xdbff && low) {
            const point = 0x10000 + ((code - 0xd800) << 10) + (Number.parseInt(low[1] as string, 16) - 0xdc00)
            out += `\\x{${point.toString(16)}}`
            i += 11
            continue
          }
          out += `\\x{${plain[0]}}`
          i += 5
          continue
        }
      }
      if (next === 's') out += inClass ? SPACE : `[${SPACE}]`
      else if (next === 'S') out += inClass ? NOT_SPACE : `[${NOT_SPACE}]`
      else out += char + next
      i++
      continue
    }
    if (inClass) {
      if (char === ']') inClass = false
      out += char
    } else if (char === '[') {
      inClass = true
      out += char
      if (pattern[i + 1] === '^') out += pattern[++i] as string
      if (pattern[i + 1] === ']') out += `\\${pattern[++i] as string}` // `[]` / `[^]` start: a literal `]` in RE2
    } else out += char === '.' ? DOT : char
  }
  return out
}

/** A pattern on RE2, or why it cannot run there. */
function re2(pattern: string, engines: RegExpModules): RegExpLike | Error {
  try {
    const compiled = engines.RE2JS.compile(toRe2(pattern))
    // Distinct from a native RegExp's `/source/flags`, so the two engines never stand in for each other.
    const key = `re2:${JSON.stringify(pattern)}`
    return { test: (text) => compiled.matcher(text).find(), toString: () => key }
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

/**
 * For schemas from a peer (a server's `outputSchema`, an elicitation form): RE2 only. A pattern it cannot
 * run makes the schema unusable instead of risking a match that never ends.
 */
export function untrustedRegExp(pattern: string): RegExpLike {
  const engines = lazyRegExp.now()
  if (!engines)
    throw new UnsafePatternError(`pattern ${JSON.stringify(pattern)} cannot be checked: no RE2 engine here`)
  const compiled = re2(pattern, engines)
  if (compiled instanceof Error) {
    throw new UnsafePatternError(
      `pattern ${JSON.stringify(pattern)} cannot be matched in linear time (${compiled.message}); it is not used`,
    )
  }
  return compiled
}

/**
 * For a server's own schemas: RE2 when it can; otherwise the native engine, unless the pattern has the
 * nested quantifiers that make backtracking explode, which are refused when the server is defined.
 */
export function trustedRegExp(pattern: string, flags: string): RegExpLike {
  const engines = lazyRegExp.now()
  // Without the engines (a runtime `require` cannot reach them) the pattern runs natively, as it would in
  // the interpreting validator used there.
  if (!engines) return new RegExp(pattern, flags)
  const compiled = re2(pattern, engines)
  if (!(compiled instanceof Error)) return compiled
  if (!engines.safeRegex(pattern)) {
    throw new UnsafePatternError(
      `pattern ${JSON.stringify(pattern)} can backtrack catastrophically (nested quantifiers) and uses syntax ` +
        `a linear-time engine cannot run (${compiled.message}); rewrite it`,
    )
  }
  return new RegExp(pattern, flags)
}
