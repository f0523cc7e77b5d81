/**
 * The security layer's `(ctx, next)` middleware: input limits, the per-principal request rate, and output
 * sanitising, in one layer so the hot path pays for one async hop, not three.
 */
import type { Middleware } from '../protocol/middleware.js'
import type { RequestContext } from '../protocol/context.js'
import { isRawJson, type ResultPayload } from '../protocol/encode.js'
import { invalidParams } from '../wire/errors.js'
import type { CallToolResult } from '../wire/types.js'
import { tooManyRequests } from '../wire/errors.js'
import { type InputLimits, inputProblem } from './input.js'
import type { PrincipalOf } from './principal.js'
import type { Bucket, RateLimitStore } from './rate-limit.js'
import { cleanValue, type OutputLimits, sanitizeResult, stripControls } from './sanitize.js'

export interface RequestLimit {
  readonly store: RateLimitStore
  readonly bucket: Bucket
  readonly principal: PrincipalOf
  readonly onStoreFailure: (error: unknown) => void
}

export interface GuardOptions {
  /** Refuses params nested too deep or carrying `__proto__` keys (-32602). */
  readonly input: InputLimits
  /** Every request counts against its principal's budget; over it: HTTP 429 with Retry-After. */
  readonly requests: RequestLimit | undefined
  /**
   * Sanitises complete `tools/call` results (one that cannot be sent safely becomes a tool error) and the text
   * of `prompts/get` and `resources/read` results.
   */
  readonly output: { readonly limits: OutputLimits; readonly report: (what: string) => string } | undefined
}

/** Methods whose results carry text a model or a terminal will read: tool results, prompts, resource reads. */
const SANITIZED = new Set(['tools/call', 'prompts/get', 'resources/read'])

export function requestGuard(options: GuardOptions): Middleware {
  const { input, requests, output } = options
  const guardOutput = (ctx: RequestContext, result: ResultPayload): ResultPayload =>
    output && SANITIZED.has(ctx.method) ? sanitized(ctx, result, output.limits, output.report) : result
  if (!requests) {
    // No request limit: nothing to await before the handler, so no extra async hop.
    return (ctx, next) => {
      const problem = inputProblem(ctx.params, input)
      if (problem) return Promise.reject(invalidParams(`Invalid params: ${problem}`))
      if (!output || !SANITIZED.has(ctx.method)) return next()
      return next().then((result) => sanitized(ctx, result, output.limits, output.report))
    }
  }
  const what = `more than ${requests.bucket.points} requests in ${requests.bucket.durationMs / 1000} s`
  return async (ctx, next) => {
    const problem = inputProblem(ctx.params, input)
    if (problem) throw invalidParams(`Invalid params: ${problem}`)
    let consumed
    try {
      consumed = await requests.store.consume(requests.bucket, requests.principal(ctx))
    } catch (error) {
      requests.onStoreFailure(error) // a broken shared store must not take the server down
    }
    if (consumed && !consumed.allowed) throw tooManyRequests(consumed.retryAfterMs, what)
    return guardOutput(ctx, await next())
  }
}

function sanitized(
  ctx: RequestContext,
  result: ResultPayload,
  limits: OutputLimits,
  report: (what: string) => string,
): ResultPayload {
  if (isRawJson(result) || result.resultType !== 'complete') return result
  // Prompt messages and resource contents: every string is cleaned (copy-on-write, so clean ones cost a scan).
  if (ctx.method !== 'tools/call') return cleanValue(result) as Record<string, unknown>
  if (!Array.isArray(result.content)) return result
  const outcome = sanitizeResult(result as unknown as CallToolResult, limits)
  if ('result' in outcome) return outcome.result as unknown as Record<string, unknown>
  const name = stripControls(String(ctx.params.name)).slice(0, 128)
  const ref = report(`tool ${name} output refused: ${outcome.log ?? outcome.refuse}`)
  const text = outcome.log ? `Tool ${name} ${outcome.refuse} (ref ${ref})` : `Tool ${name} ${outcome.refuse}`
  const refused: Record<string, unknown> = {
    resultType: 'complete',
    content: [{ type: 'text', text }],
    isError: true,
  }
  if (result._meta !== undefined) refused._meta = result._meta
  return refused
}
