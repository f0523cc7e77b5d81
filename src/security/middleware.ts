/**
 * The security layer's `(ctx, next)` middleware: input limits, the per-principal request rate, and output
 * sanitising of prompt and resource reads, in one layer so the hot path pays for one async hop, not three.
 * Tool results are guarded inside the tools/call pipeline (`output-guard.ts`), before they are validated.
 */
import type { AroundSteps, Middleware } from '../protocol/middleware.js'
import type { RequestContext } from '../protocol/context.js'
import type { RefusalGuard } from '../protocol/telemetry.js'
import { isRawJson, type ResultPayload } from '../protocol/encode.js'
import { invalidParams } from '../wire/errors.js'
import { tooManyRequests } from '../wire/errors.js'
import { type InputLimits, inputProblem } from './input.js'
import type { OwnerOf } from './principal.js'
import type { Bucket, RateLimitStore } from './rate-limit.js'
import { cleanValue } from './output-guard.js'

export interface RequestLimit {
  readonly store: RateLimitStore
  readonly bucket: Bucket
  readonly principal: OwnerOf
  readonly onStoreFailure: (error: unknown) => void
}

export interface GuardOptions {
  /** Refuses params nested too deep or carrying `__proto__` keys (-32602). */
  readonly input: InputLimits
  /** Every request counts against its principal's budget; over it: HTTP 429 with Retry-After. */
  readonly requests: RequestLimit | undefined
  /** Sanitises every string of `prompts/get` and `resources/read` results. */
  readonly output: boolean
}

/** Methods besides tools/call whose results carry text a model or a terminal will read. */
const SANITIZED = new Set(['prompts/get', 'resources/read'])

/**
 * The guard without a request limit: nothing in it waits, so it runs as synchronous steps around the
 * handler rather than as middleware.
 */
export function requestSteps(options: Omit<GuardOptions, 'requests'>): AroundSteps {
  const { input, output } = options
  return {
    before: (ctx) => {
      const problem = inputProblem(ctx.params, input)
      if (problem) throw refuse(ctx, 'validation', invalidParams(`Invalid params: ${problem}`))
    },
    after: (method) => (output && SANITIZED.has(method) ? sanitized : undefined),
  }
}

/** The guard with a request limit, which waits for the limit's store: middleware. */
export function requestGuard(options: GuardOptions & { readonly requests: RequestLimit }): Middleware {
  const { input, requests, output } = options
  const guardOutput = (ctx: RequestContext, result: ResultPayload): ResultPayload =>
    output && SANITIZED.has(ctx.method) ? sanitized(result) : result
  const what = `more than ${requests.bucket.points} requests in ${requests.bucket.durationMs / 1000} s`
  return async (ctx, next) => {
    const problem = inputProblem(ctx.params, input)
    if (problem) throw refuse(ctx, 'validation', invalidParams(`Invalid params: ${problem}`))
    let consumed
    try {
      consumed = await requests.store.consume(requests.bucket, requests.principal(ctx))
    } catch (error) {
      requests.onStoreFailure(error) // a broken shared store must not take the server down
    }
    if (consumed && !consumed.allowed)
      throw refuse(ctx, 'rate_limit', tooManyRequests(consumed.retryAfterMs, what))
    return guardOutput(ctx, await next())
  }
}

/** Tells telemetry which guard refused, and returns the refusal to throw. */
export function refuse<E>(ctx: RequestContext, guard: RefusalGuard, refusal: E): E {
  ctx.refused(guard)
  return refusal
}

function sanitized(result: ResultPayload): ResultPayload {
  if (isRawJson(result) || result.resultType !== 'complete') return result
  // Every string is cleaned (copy-on-write, so clean ones cost a scan).
  return cleanValue(result) as Record<string, unknown>
}
