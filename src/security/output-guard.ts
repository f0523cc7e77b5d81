/**
 * The output guard for tool results. One walk over the whole result cleans every string (values and keys,
 * including the result's `_meta`, each block's `_meta` and `annotations`): terminal escapes and invisible
 * controls are removed, and configured secrets in string values are replaced (never in keys or protocol
 * fields such as `type`, `mimeType`, `uri` or `progressToken`). The same walk counts the
 * result's size as JSON text in UTF-8 bytes, so the cap measures what goes on the wire, not characters.
 * Numbers, keys' meaning and JSON syntax are never rewritten: the result is cleaned as a structure and
 * encoded afterwards. A result of structured content alone is first checked on its JSON text copy
 * (json-text-scan.ts), and walked here only when that text shows something to clean.
 */
import type { CallToolResult, ContentBlock } from '../wire/types.js'
import { binaryProblem, stripControls } from './sanitize.js'

export interface OutputLimits {
  /** Largest result, in bytes of its JSON encoding (default 1 MiB). */
  readonly maxBytes: number
  /** Over the cap: cut text with a marker (default), or refuse with a tool error. */
  readonly oversized: 'truncate' | 'refuse'
}

/** Replaces secrets inside one string value. */
export type Redact = (text: string) => string

/**
 * Protocol fields: their values name types, formats, resources, tokens and states that the peer matches
 * exactly, so a secret that happens to equal one (`text`, `image/png`, a resource URI, a progress token) must
 * not rewrite it (`"type":"[redacted]"` would break the message). They are cleaned but never redacted.
 */
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

/** Redact as usual, leave alone (a protocol field), or redact every string below (a value of the caller's). */
const enum Field {
  Default,
  Protocol,
  Free,
}

/**
 * The role of `record[key]` for redaction. Free values are the tool's structured output and `data` (log
 * data, error data): every string in them is redacted whatever its key. The `data` of an image or audio
 * block is base64, a protocol field like `blob`.
 */
function fieldOf(record: Record<string, unknown>, key: string): Field {
  if (key === 'structuredContent') return Field.Free
  if (key === 'data') return record.type === 'image' || record.type === 'audio' ? Field.Protocol : Field.Free
  return PROTOCOL_FIELDS.has(key) ? Field.Protocol : Field.Default
}

/** What the guard decided: the result to send, or why it cannot be sent (`log` is for the operator only). */
export type Guarded = { result: CallToolResult } | { refuse: string; log?: string }

const own = Object.prototype.hasOwnProperty

/** Encoded size of what was walked, in bytes. */
export interface Tally {
  n: number
}

/** Bytes the UTF-16 code unit at `index` adds to the JSON text, and how many units it consumed. */
function unitBytes(text: string, index: number): [bytes: number, units: number] {
  const code = text.charCodeAt(index)
  if (code < 0x80) {
    if (code === 0x22 || code === 0x5c) return [2, 1]
    if (code >= 0x20) return [1, 1]
    return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? [2, 1] : [6, 1]
  }
  if (code < 0x800) return [2, 1]
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1)
    return next >= 0xdc00 && next <= 0xdfff ? [4, 2] : [6, 1] // a lone surrogate is written as \udxxx
  }
  return code >= 0xdc00 && code <= 0xdfff ? [6, 1] : [3, 1]
}

/** Size of `JSON.stringify(text)` in UTF-8 bytes, quotes included. Runs on every string sent: allocates nothing. */
export function encodedLength(text: string): number {
  let bytes = 2
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x80) {
      if (code >= 0x20) bytes += code === 0x22 || code === 0x5c ? 2 : 1
      else bytes += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6
    } else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4
      index++
    } else bytes += code >= 0xd800 && code <= 0xdfff ? 6 : 3 // a lone surrogate is written as \udxxx
  }
  return bytes
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * `encodedLength(text)` when `text` has nothing `stripControls` would look at (`mayNeedStripping` is false),
 * else -1. One pass instead of a regex test and then a count: the guard runs it on every key and every
 * string of every result, and nearly all of them are clean.
 */
export function cleanEncodedLength(text: string): number {
  let bytes = 2
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x80) {
      if (code >= 0x20 && code !== 0x7f) bytes += code === 0x22 || code === 0x5c ? 2 : 1
      else if (code === 9 || code === 10) bytes += 2
      else return -1 // other C0 controls and DEL
    } else if (code < 0x800) {
      if (code <= 0x9f) return -1 // C1 controls
      bytes += 2
    } else if (code >= 0xd800 && code <= 0xdbff) {
      if (code === 0xdb40) return -1 // the first half of a tag character
      if (isLowSurrogate(text.charCodeAt(index + 1))) {
        bytes += 4
        index++
      } else bytes += 6 // a lone surrogate is written as \udxxx
    } else if (
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      (code >= 0xfff9 && code <= 0xfffb)
    )
      return -1 // bidi controls and interlinear annotation marks
    else bytes += code >= 0xdc00 && code <= 0xdfff ? 6 : 3
  }
  return bytes
}

/** Keys longer than this are scanned every time: the cache holds only short keys, so it stays small. */
const KEY_CACHE_LENGTH = 64
/** Entries the key cache grows to; after that, keys it does not hold are scanned every time (no eviction). */
const KEY_CACHE_SIZE = 1024
/**
 * `cleanEncodedLength` of object keys already seen, for clean keys only (a key with something to strip is
 * never cached and always takes the full path). Scanning a key costs about 45 instructions per character,
 * a lookup about 130 whatever its length, and nearly every key of every result is one of a few names
 * (`content`, `type`, `text`, `structuredContent`, the tool's own fields). The cached number is the scan's
 * own answer for that exact string (strings are immutable and a `Map` compares them by content), so the
 * guard's verdict and its byte count are those of the scan. Bounded in entries and key length: a result
 * with thousands of distinct keys fills it once and is then scanned as before.
 */
const keyBytesCache = new Map<string, number>()

/**
 * `cleanEncodedLength(key)` through the key cache. The keys of the result's own shape (server/tools §Tool
 * Result) are plain ASCII with nothing to escape, so their length is answered by comparison, cheaper than
 * the cache's lookup.
 */
export function cleanKeyLength(key: string): number {
  switch (key) {
    case 'type':
    case 'text':
    case 'content':
    case 'structuredContent':
    case 'isError':
    case '_meta':
      return key.length + 2
  }
  const known = keyBytesCache.get(key)
  if (known !== undefined) return known
  const bytes = cleanEncodedLength(key)
  if (bytes >= 0 && key.length <= KEY_CACHE_LENGTH && keyBytesCache.size < KEY_CACHE_SIZE)
    keyBytesCache.set(key, bytes)
  return bytes
}

/**
 * Size of `JSON.stringify(value)` for a number: `null` when it is not finite, and for an integer below a
 * billion its digits counted without making the string (most numbers in results are such integers).
 */
function numberBytes(value: number): number {
  if (value > -1e9 && value < 1e9 && Number.isInteger(value)) {
    const size = value < 0 ? -value : value // -0 is written as 0
    const digits =
      size < 10
        ? 1
        : size < 100
          ? 2
          : size < 1e3
            ? 3
            : size < 1e4
              ? 4
              : size < 1e5
                ? 5
                : size < 1e6
                  ? 6
                  : size < 1e7
                    ? 7
                    : size < 1e8
                      ? 8
                      : 9
    return value < 0 ? digits + 1 : digits
  }
  return Number.isFinite(value) ? String(value).length : 4
}

/** The longest prefix of `text` whose JSON string (quotes included) fits in `budget` bytes. */
function prefixWithin(text: string, budget: number): string {
  let bytes = 2
  let index = 0
  while (index < text.length) {
    const [add, units] = unitBytes(text, index)
    if (bytes + add > budget) break
    bytes += add
    index += units
  }
  return text.slice(0, index)
}

/**
 * A JSON value with every string cleaned (and string values redacted); adds its encoded size to `tally`.
 * Copy-on-write: a value with nothing to clean comes back as the same reference, so a clean result costs a
 * scan and no allocation.
 */
export function cleanValue(value: unknown, tally: Tally = { n: 0 }, redact?: Redact, free = false): unknown {
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
      tally.n += numberBytes(value)
      return value
    case 'boolean':
      tally.n += value ? 4 : 5
      return value
    case 'object':
      break
    default:
      return value // undefined and functions: JSON leaves them out
  }
  if (value === null) {
    tally.n += 4
    return value
  }
  if (Array.isArray(value)) {
    tally.n += value.length > 0 ? value.length + 1 : 2 // brackets and commas
    let copy: unknown[] | undefined
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (item === undefined) tally.n += 4 // written as null
      const cleaned = cleanValue(item, tally, redact, free)
      if (cleaned !== item) (copy ??= [...(value as unknown[])])[index] = cleaned
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  let members = 0
  // for-in over a plain object uses V8's enum cache: no key array per object (JSON values have no
  // enumerable inherited keys; own keys are checked all the same).
  for (const key in record) {
    if (!own.call(record, key)) continue
    const item = record[key]
    if (item === undefined) continue
    members++
    let cleanKey = key
    let keyBytes = cleanKeyLength(key)
    if (keyBytes < 0) {
      cleanKey = stripControls(key)
      keyBytes = encodedLength(cleanKey)
    }
    tally.n += keyBytes + 1 // the key and its colon
    // Without secrets (the usual case) no field is looked up: the walk stays as cheap as before.
    const field = redact === undefined || free ? Field.Default : fieldOf(record, key)
    const cleaned =
      field === Field.Default
        ? cleanValue(item, tally, redact, free)
        : cleanValue(item, tally, field === Field.Free ? redact : undefined, field === Field.Free)
    if (cleanKey === key && cleaned === item) continue
    copy ??= { ...record }
    if (cleanKey !== key) delete copy[key]
    copy[cleanKey] = cleaned
  }
  tally.n += members > 0 ? members + 1 : 2 // braces and commas
  return copy ?? value
}

/** Encoded size of a JSON value in bytes, without changing anything. */
export function jsonBytes(value: unknown): number {
  const tally = { n: 0 }
  cleanValue(value, tally)
  return tally.n
}

function binaryBlockProblem(block: ContentBlock): string | undefined {
  if (block.type === 'image' || block.type === 'audio') {
    const problem = binaryProblem(block.data, block.mimeType, block.type)
    return problem && `${block.type} content: ${problem}`
  }
  if (block.type === 'resource') {
    const resource = block.resource as unknown as Record<string, unknown>
    if (typeof resource.blob !== 'string') return undefined
    const problem = binaryProblem(resource.blob, resource.mimeType)
    return problem && `resource ${String(resource.uri)}: ${problem}`
  }
  return undefined
}

export interface Cleaned {
  readonly result: CallToolResult
  readonly bytes: number
}

/**
 * Cleans a whole result: every string, everywhere in it. `strip: false` (sanitising switched off) still
 * redacts. Never throws; unusable binary content becomes a refusal.
 */
export function cleanResult(
  result: CallToolResult,
  strip: boolean,
  redact: Redact | undefined,
): Cleaned | { refuse: string; log: string } {
  if (strip) {
    for (const block of result.content) {
      const problem = binaryBlockProblem(block)
      if (problem) return { refuse: 'produced invalid binary content', log: problem }
    }
  }
  const tally = { n: 0 }
  const cleaned = strip ? cleanValue(result, tally, redact) : redactValue(result, redact)
  if (!strip) tally.n = jsonBytes(cleaned)
  return { result: cleaned as CallToolResult, bytes: tally.n }
}

/**
 * Redaction alone (string values only, never keys or protocol fields; copy-on-write): for errors, other
 * results, and unsanitised output.
 */
export function redactValue(value: unknown, redact: Redact | undefined, free = false): unknown {
  if (!redact) return value
  if (typeof value === 'string') return redact(value)
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    value.forEach((item: unknown, index) => {
      const cleaned = redactValue(item, redact, free)
      if (cleaned !== item) (copy ??= [...(value as unknown[])])[index] = cleaned
    })
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(record)) {
    const field = free ? Field.Free : fieldOf(record, key)
    if (field === Field.Protocol) continue
    const cleaned = redactValue(item, redact, field === Field.Free)
    if (cleaned !== item) (copy ??= { ...record })[key] = cleaned
  }
  return copy ?? value
}

const marker = (max: number): string => `\n[truncated: the result exceeded the ${max}-byte limit]`

/** Cuts text so the content array fits in `budget` bytes, drops the blocks after the cut, and says so. */
function truncate(content: readonly ContentBlock[], budget: number, max: number): ContentBlock[] | undefined {
  const note = marker(max)
  const noteBlock: ContentBlock = { type: 'text', text: note.trimStart() }
  const noteCost = jsonBytes(noteBlock) + 1
  let left = budget - 2 // the brackets; each block below also pays for one comma
  const kept: ContentBlock[] = []
  for (const block of content) {
    const weight = jsonBytes(block) + 1
    if (weight + noteCost <= left) {
      kept.push(block)
      left -= weight
      continue
    }
    if (block.type === 'text') {
      const room = left - (weight - encodedLength(block.text)) - encodedLength(note) + 2
      if (room > 2) {
        kept.push({ ...block, text: prefixWithin(block.text, room) + note })
        return kept
      }
    }
    break
  }
  if (left < noteCost) return undefined
  kept.push(noteBlock)
  return kept
}

/** Fits a cleaned result under the cap: unchanged, with its text cut (default), or refused. */
export function fitResult(result: CallToolResult, bytes: number, limits: OutputLimits): Guarded {
  if (bytes <= limits.maxBytes) return { result }
  const over = `returned ${bytes} bytes, over the ${limits.maxBytes}-byte limit for results; ask for less (narrow the query or page through it)`
  // Structured content cannot be cut without breaking its schema, and `_meta` cannot be cut at all.
  if (limits.oversized === 'refuse' || result.structuredContent !== undefined) return { refuse: over }
  const rest = bytes - jsonBytes(result.content)
  const content = truncate(result.content, limits.maxBytes - rest, limits.maxBytes)
  return content ? { result: { ...result, content } } : { refuse: over }
}
