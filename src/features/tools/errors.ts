/** Deliberate tool failures, and the policy for what an unexpected failure may tell the caller. */
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/**
 * Throw to fail a call on purpose: the caller receives an `isError` result with exactly this message.
 *
 * @example
 * ```ts
 * const read = defineTool({
 *   name: 'notes_read',
 *   inputSchema: jsonSchema<{ id: string }>({ type: 'object', properties: { id: { type: 'string' } } }),
 *   handler: ({ id }) => notes.get(id) ?? Promise.reject(new ToolError(`No note ${id}`)),
 * })
 * ```
 */
export class ToolError extends ToolwireError {
  override readonly name = 'ToolError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_TOOL'
  }
}

/**
 * How much of a failure's message reaches the caller.
 * - 'safe' (default): only a `ToolError`'s message, which the author wrote for the caller. Anything else
 *   thrown (a plain `Error`, a driver's error, a bug) may carry hosts, credentials or paths, so the caller
 *   gets a generic message with a reference id and the details go to the server log.
 * - 'message': every `Error`'s message is shown (for trusted callers, e.g. local development).
 */
export type ErrorExposure = 'safe' | 'message'

export function exposesMessage(error: unknown, exposure: ErrorExposure): boolean {
  if (error instanceof ToolError) return true
  return exposure === 'message' && error instanceof Error
}
