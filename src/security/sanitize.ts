/**
 * Text and binary hygiene for what a server sends: terminal escape sequences and invisible control
 * characters are removed from every string a client may print, and binary content must be real base64 of
 * the declared media type. `output-guard.ts` applies these to whole results.
 */
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

/**
 * Removes terminal escape sequences and invisible control characters; keeps newline and tab.
 *
 * @example
 * ```ts
 * stripControls('ok\u001b[31m red') // 'ok[31m red': the escape character is gone
 * ```
 */
export function stripControls(text: string): string {
  if (!mayNeedStripping(text)) return text
  return text.replace(ESCAPES, '').replace(INVISIBLE, '')
}

/**
 * Whether `text` holds a character `stripControls` may remove (a C0 control other than tab and line feed,
 * DEL, a C1 control, a bidi control, an interlinear annotation mark, or the first half of a tag character):
 * without one, `stripControls` returns `text` itself. The output guard's one-pass scan
 * (`cleanEncodedLength`) must agree with it; a property test holds them together.
 */
export function mayNeedStripping(text: string): boolean {
  return SUSPECT.test(text)
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
