/** Deliberate tool failures, and the policy for what an unexpected failure may tell the caller. */

/** Throw to fail a call on purpose: the caller receives an `isError` result with exactly this message. */
export class ToolError extends Error {
  override readonly name = 'ToolError'
}

/** How much of an unexpected error's message reaches the caller. */
export type ErrorExposure = 'message' | 'safe' | 'none'

const BUG_ERRORS = [TypeError, ReferenceError, SyntaxError, RangeError, EvalError, URIError]

/**
 * 'safe' (default): a plain `Error` a tool author threw keeps its message; programming errors (TypeError …)
 * and system errors (with an errno `code`) become a generic message with a correlation id, details logged.
 */
export function exposesMessage(error: unknown, exposure: ErrorExposure): boolean {
  if (error instanceof ToolError) return true
  if (!(error instanceof Error) || exposure === 'none') return false
  if (exposure === 'message') return true
  if (BUG_ERRORS.some((type) => error instanceof type)) return false
  return typeof (error as { code?: unknown }).code !== 'string'
}
