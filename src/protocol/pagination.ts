/**
 * Opaque, validated cursors over an ordered list (utilities/pagination §Pagination Model, §Error Handling).
 */
import { invalidParams } from '../wire/errors.js'

const PREFIX = 'tw1:'

export function encodeCursor(offset: number): string {
  return btoa(`${PREFIX}${offset.toString(36)}`).replaceAll('=', '')
}

/** Returns the offset a cursor names; any cursor toolwire did not mint is -32602. */
export function decodeCursor(cursor: unknown, pageSize: number): number {
  if (cursor === undefined) return 0
  if (typeof cursor !== 'string') throw invalidParams('Invalid cursor: must be a string')
  let text: string
  try {
    text = atob(cursor)
  } catch {
    throw invalidParams('Invalid cursor')
  }
  if (!text.startsWith(PREFIX)) throw invalidParams('Invalid cursor')
  const digits = text.slice(PREFIX.length)
  const offset = /^[0-9a-z]{1,10}$/.test(digits) ? parseInt(digits, 36) : NaN
  if (!Number.isSafeInteger(offset) || offset <= 0 || offset % pageSize !== 0)
    throw invalidParams('Invalid cursor')
  return offset
}
