/**
 * One pass over the JSON text of a value (`JSON.stringify(value)`, as the structured-content text copy is
 * made) that answers what the output guard's walk of the value and its count of the copy would: whether any
 * string in the value (key or value) holds something `stripControls` would look at, the value's encoded size,
 * and the size of the text itself written as a JSON string. A result with structured content and no content
 * of its own then costs one scan of the text it sends anyway, not a walk of the value and a scan of the text.
 *
 * What `JSON.stringify` writes is fixed (ECMA-262 §25.5.2.3 QuoteJSONString): the C0 controls as `\b \t \n
 * \f \r` or `\u00XX`, a lone surrogate as `\uDXXX` (lower-case hex), `"` and `\` escaped, everything else
 * as it is. So a string the guard would clean shows in the text as one of: the escapes `\b`, `\f`, `\r`,
 * `\u00XX` (a C0 control other than tab and line feed), `\udb40` (a lone first half of a tag character), or a
 * raw DEL, C1 control, first half of a tag character, bidi control or interlinear annotation mark: exactly
 * the code units `cleanEncodedLength` refuses (output-guard.ts).
 */

/** The value's encoded size and its text's, both in UTF-8 bytes. */
export interface ScannedJson {
  /** `JSON.stringify(value)` in UTF-8 bytes: what the value adds to the message. */
  readonly valueBytes: number
  /** `JSON.stringify(text)` in UTF-8 bytes, quotes included: what the text adds as a string. */
  readonly textBytes: number
}

const BACKSLASH = 0x5c
const QUOTE = 0x22

/**
 * The sizes of `text`, the output of `JSON.stringify` for some value, or undefined when a string in that
 * value has something the output guard would strip (then the value must be walked and cleaned).
 */
export function scanJsonText(text: string): ScannedJson | undefined {
  let bytes = 0 // UTF-8 bytes of the text
  let escaped = 0 // its quotes and backslashes: each is written with one more backslash as a string
  const length = text.length
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x80) {
      if (code === BACKSLASH) {
        const next = text.charCodeAt(index + 1)
        if (next === 0x75 /* u */) {
          // `\u00XX` is a C0 control; `\udXXX` a lone surrogate, clean unless it is the tag characters' half.
          if (text.charCodeAt(index + 2) === 0x30 || text.startsWith('db40', index + 2)) return undefined
          bytes += 6
          escaped++
          index += 5
          continue
        }
        if (next === 0x62 /* b */ || next === 0x66 /* f */ || next === 0x72 /* r */) return undefined
        // `\"`, `\\`, `\n`, `\t`: the second character is a quote or a backslash in the first two.
        bytes += 2
        escaped += next === QUOTE || next === BACKSLASH ? 2 : 1
        index++
        continue
      }
      if (code === 0x7f) return undefined
      if (code === QUOTE) escaped++
      bytes++
    } else if (code < 0x800) {
      if (code <= 0x9f) return undefined // C1 controls
      bytes += 2
    } else if (code >= 0xd800 && code <= 0xdbff) {
      // Raw, so paired: JSON.stringify escapes a lone one.
      if (code === 0xdb40) return undefined
      bytes += 4
      index++
    } else if (
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      (code >= 0xfff9 && code <= 0xfffb)
    )
      return undefined // bidi controls and interlinear annotation marks
    else bytes += 3
  }
  return { valueBytes: bytes, textBytes: bytes + escaped + 2 }
}
