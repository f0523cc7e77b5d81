/**
 * Opaque cursors over an ordered, keyed list (server/utilities/pagination: servers "provide stable cursors").
 * A cursor names the last item of the page it follows, by its insertion number and key, not by an offset:
 * when items are added, removed, enabled or disabled between two page requests, the next page starts right
 * after that item, so nothing is skipped. A cursor the list cannot place is refused with -32602
 * (pagination §Error Handling), and the client lists again from the start.
 */
import { base64UrlToBytes, bytesToBase64Url } from '../wire/base64.js'
import { invalidParams } from '../wire/errors.js'

const PREFIX = 'tw2:'

/** Where a page ended: the insertion number and key of its last item. */
export interface CursorPosition {
  readonly serial: number
  readonly key: string
}

/** Keys are names and URIs (any Unicode), so the cursor is base64url of UTF-8; runs in any runtime. */
export function encodeCursor(position: CursorPosition): string {
  return bytesToBase64Url(
    new TextEncoder().encode(`${PREFIX}${position.serial.toString(36)}:${position.key}`),
  )
}

/** The position a cursor continues after, or `undefined` for the first page; a cursor toolwire did not mint is -32602. */
export function decodeCursor(cursor: unknown): CursorPosition | undefined {
  if (cursor === undefined) return undefined
  if (typeof cursor !== 'string') throw invalidParams('Invalid cursor: must be a string')
  const bytes = base64UrlToBytes(cursor)
  let text: string
  try {
    if (bytes === undefined) throw new TypeError('not base64url')
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalidParams('Invalid cursor')
  }
  const match = text.startsWith(PREFIX) ? /^([0-9a-z]{1,10}):(.+)$/s.exec(text.slice(PREFIX.length)) : null
  const serial = match ? parseInt(match[1] as string, 36) : NaN
  if (!match || !Number.isSafeInteger(serial)) throw invalidParams('Invalid cursor')
  return { serial, key: match[2] as string }
}

/** The answer to a cursor from another list (a restarted or differently configured server): start over. */
export function staleCursor(): Error {
  return invalidParams('Invalid cursor: the list has changed since it was issued; list again from the start')
}
