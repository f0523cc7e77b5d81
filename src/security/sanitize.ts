/**
 * Output sanitising for tool results: terminal escape sequences and invisible control characters are
 * removed from every string a client may print, binary content must be real base64 of the declared media
 * type, and results above a size cap are truncated with a visible marker or refused.
 */
import type { CallToolResult, ContentBlock } from '../wire/types.js'
import { base64ToBytes } from '../wire/base64.js'

/* eslint-disable no-control-regex -- matching control characters is the point here */
/** CSI, OSC (to BEL or ST), DCS/SOS/PM/APC strings, two-byte ESC sequences and 8-bit CSI. */
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?|\x9b[0-?]*[ -/]*[@-~]/g
/**
 * C0 controls except tab and line feed (a carriage return only inside CRLF), DEL, C1 controls, bidi
 * embedding/override/isolate controls, interlinear annotation marks and Unicode tag characters (used to
 * smuggle invisible text to models). Zero-width joiners stay: emoji and many scripts need them.
 */
const INVISIBLE =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufff9-\ufffb]|\r(?!\n)|\udb40[\udc00-\udc7f]/g
const SUSPECT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufff9-\ufffb\udb40]/
/* eslint-enable no-control-regex */

/** Removes terminal escape sequences and invisible control characters; keeps newline and tab. */
export function stripControls(text: string): string {
  if (!SUSPECT.test(text)) return text
  return text.replace(ESCAPES, '').replace(INVISIBLE, '')
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const MIME =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/i

/** Leading bytes of the media types whose declared type can be checked against the data. */
const MAGIC: Record<string, (bytes: Uint8Array) => boolean> = {
  'image/png': (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => starts(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => starts(b, [0x47, 0x49, 0x46, 0x38]),
  'image/webp': (b) => starts(b, [0x52, 0x49, 0x46, 0x46]) && ascii(b, 8, 'WEBP'),
  'audio/wav': (b) => starts(b, [0x52, 0x49, 0x46, 0x46]) && ascii(b, 8, 'WAVE'),
  'audio/x-wav': (b) => starts(b, [0x52, 0x49, 0x46, 0x46]) && ascii(b, 8, 'WAVE'),
  'audio/ogg': (b) => ascii(b, 0, 'OggS'),
  'audio/flac': (b) => ascii(b, 0, 'fLaC'),
  'application/pdf': (b) => ascii(b, 0, '%PDF-'),
}

const starts = (bytes: Uint8Array, prefix: readonly number[]): boolean =>
  prefix.every((byte, index) => bytes[index] === byte)
const ascii = (bytes: Uint8Array, at: number, text: string): boolean =>
  [...text].every((char, index) => bytes[at + index] === char.charCodeAt(0))

/** The first 18 bytes: enough for every signature checked below. */
const head = (base64: string): Uint8Array => base64ToBytes(base64.slice(0, 24))

/** Why a binary payload is unacceptable, or undefined. `family` is the required top-level type. */
export function binaryProblem(data: unknown, mimeType: unknown, family?: string): string | undefined {
  if (typeof data !== 'string' || !BASE64.test(data)) return 'data is not valid base64'
  if (mimeType === undefined && family === undefined) return undefined
  if (typeof mimeType !== 'string' || !MIME.test(mimeType)) return 'mimeType is not a valid media type'
  const essence = mimeType.split(';')[0]!.trim().toLowerCase()
  if (family !== undefined && !essence.startsWith(`${family}/`))
    return `mimeType ${essence} is not an ${family} type`
  const sniff = MAGIC[essence]
  if (sniff && data.length > 0 && !sniff(head(data))) return `data is not ${essence}`
  return undefined
}

export interface OutputLimits {
  /** Largest result, in bytes of text and base64 (default 1 MiB). */
  readonly maxBytes: number
  /** Over the cap: cut text with a marker (default), or refuse with a tool error. */
  readonly oversized: 'truncate' | 'refuse'
}

/** What `sanitizeResult` decided: the result to send, or a problem that makes it unsendable. */
export type Sanitized = { result: CallToolResult } | { refuse: string; log?: string }

/**
 * A JSON value with every string sanitised; counts string bytes into `size`. Copy-on-write: a value with
 * nothing to clean comes back as the same reference, so clean results cost a scan and no allocation.
 */
export function cleanValue(value: unknown, size: { n: number } = { n: 0 }): unknown {
  if (typeof value === 'string') {
    size.n += value.length
    return stripControls(value)
  }
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    value.forEach((item: unknown, index) => {
      const cleaned = cleanValue(item, size)
      if (cleaned !== item) (copy ??= [...value])[index] = cleaned
    })
    return copy ?? value
  }
  let copy: Record<string, unknown> | undefined
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const item = record[key]
    size.n += key.length
    const cleanKey = stripControls(key)
    const cleaned = cleanValue(item, size)
    if (cleanKey === key && cleaned === item) continue
    copy ??= { ...record }
    if (cleanKey !== key) delete copy[key]
    copy[cleanKey] = cleaned
  }
  return copy ?? value
}

function cleanBlock(block: ContentBlock, size: { n: number }): ContentBlock | string {
  switch (block.type) {
    case 'text': {
      size.n += block.text.length
      const text = stripControls(block.text)
      return text === block.text ? block : { ...block, text }
    }
    case 'image':
    case 'audio': {
      size.n += block.data.length
      const problem = binaryProblem(block.data, block.mimeType, block.type)
      return problem ? `${block.type} content: ${problem}` : block
    }
    case 'resource': {
      const resource = block.resource as unknown as Record<string, unknown>
      if (typeof resource.blob === 'string') {
        size.n += resource.blob.length
        const problem = binaryProblem(resource.blob, resource.mimeType)
        return problem ? `resource ${String(resource.uri)}: ${problem}` : block
      }
      return cleanValue(block, size) as ContentBlock
    }
    default:
      return cleanValue(block, size) as ContentBlock
  }
}

const marker = (max: number): string => `\n[truncated: the result exceeded the ${max}-byte limit]`

/** Cuts text blocks to fit `max`, drops the blocks that no longer fit, and says so. */
function truncate(content: readonly ContentBlock[], max: number): ContentBlock[] {
  const kept: ContentBlock[] = []
  let budget = max - 100
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.length <= budget) {
        kept.push(block)
        budget -= block.text.length
        continue
      }
      kept.push({ type: 'text', text: block.text.slice(0, Math.max(0, budget)) + marker(max) })
      return kept
    }
    const weight = JSON.stringify(block).length
    if (weight > budget) {
      kept.push({ type: 'text', text: marker(max).trimStart() })
      return kept
    }
    kept.push(block)
    budget -= weight
  }
  return kept
}

/** Sanitises one tool result. Never throws; a problem becomes a refusal the caller turns into a tool error. */
export function sanitizeResult(result: CallToolResult, limits: OutputLimits): Sanitized {
  const size = { n: 0 }
  const original = result.content
  // Copy-on-write: the content array is copied only once a block changes.
  let content: ContentBlock[] | undefined
  for (let index = 0; index < original.length; index++) {
    const block = original[index] as ContentBlock
    const cleaned = cleanBlock(block, size)
    if (typeof cleaned === 'string') return { refuse: 'produced invalid binary content', log: cleaned }
    if (cleaned !== block) (content ??= original.slice(0, index)).push(cleaned)
    else content?.push(block)
  }
  let structured = result.structuredContent
  if (structured !== undefined) {
    structured = cleanValue(structured, size) as Record<string, unknown>
    // The JSON text copy of the structured value was made before sanitising; keep the two in step.
    if (structured !== result.structuredContent) {
      const blocks = (content ??= [...original])
      const before = JSON.stringify(result.structuredContent)
      blocks.forEach((block, index) => {
        if (block.type === 'text' && block.text === before)
          blocks[index] = { ...block, text: JSON.stringify(structured) }
      })
    }
  }
  const fits = size.n <= limits.maxBytes
  if (fits && content === undefined) return { result }
  const blocks = content ?? [...original]
  const clean: CallToolResult = { ...result, content: blocks }
  if (structured !== undefined) clean.structuredContent = structured
  if (fits) return { result: clean }
  const over = `returned about ${size.n} bytes, over the ${limits.maxBytes}-byte limit for results`
  if (limits.oversized === 'refuse' || structured !== undefined)
    return { refuse: `${over}; ask for less (narrow the query or page through it)` }
  return { result: { ...clean, content: truncate(blocks, limits.maxBytes) } }
}
