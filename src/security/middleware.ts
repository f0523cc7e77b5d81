/** The security layer's `(ctx, next)` middleware: input limits, the per-principal request rate, output sanitising. */
import type { Middleware } from '../protocol/middleware.js'
import { isRawJson } from '../protocol/encode.js'
import { invalidParams } from '../wire/errors.js'
import type { CallToolResult } from '../wire/types.js'
import { tooManyRequests } from './errors.js'
import { type InputLimits, inputProblem } from './input.js'
import type { PrincipalOf } from './principal.js'
import type { Bucket, RateLimitStore } from './rate-limit.js'
import { type OutputLimits, sanitizeResult, stripControls } from './sanitize.js'

/** Refuses params nested too deep or carrying `__proto__` keys (-32602). */
export function inputGuard(limits: InputLimits): Middleware {
  return (ctx, next) => {
    const problem = inputProblem(ctx.params, limits)
    if (problem) throw invalidParams(`Invalid params: ${problem}`)
    return next()
  }
}

/** Every request counts against its principal's budget; over it: HTTP 429 with Retry-After. */
export function requestLimiter(
  store: RateLimitStore,
  bucket: Bucket,
  principal: PrincipalOf,
  onStoreFailure: (error: unknown) => void,
): Middleware {
  const what = `more than ${bucket.points} requests in ${bucket.durationMs / 1000} s`
  return async (ctx, next) => {
    let consumed
    try {
      consumed = await store.consume(bucket, principal(ctx))
    } catch (error) {
      onStoreFailure(error)
    }
    if (consumed && !consumed.allowed) throw tooManyRequests(consumed.retryAfterMs, what)
    return next()
  }
}

/** Sanitises complete `tools/call` results; a result that cannot be sent safely becomes a tool error. */
export function outputSanitizer(limits: OutputLimits, report: (what: string) => string): Middleware {
  return async (ctx, next) => {
    const result = await next()
    if (ctx.method !== 'tools/call' || isRawJson(result) || result.resultType !== 'complete') return result
    if (!Array.isArray(result.content)) return result
    const outcome = sanitizeResult(result as unknown as CallToolResult, limits)
    if ('result' in outcome) return outcome.result as unknown as Record<string, unknown>
    const name = stripControls(String(ctx.params.name)).slice(0, 128)
    const ref = report(`tool ${name} output refused: ${outcome.log ?? outcome.refuse}`)
    const text = outcome.log
      ? `Tool ${name} ${outcome.refuse} (ref ${ref})`
      : `Tool ${name} ${outcome.refuse}`
    const refused: Record<string, unknown> = {
      resultType: 'complete',
      content: [{ type: 'text', text }],
      isError: true,
    }
    if (result._meta !== undefined) refused._meta = result._meta
    return refused
  }
}
