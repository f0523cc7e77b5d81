/**
 * The security layer's steps around every method: input limits, the per-principal request rate, and output
 * sanitising of prompt and resource reads, outside any middleware and with no async hop of their own.
 * Tool results are guarded inside the tools/call pipeline (`output-guard.ts`), before they are validated.
 */
import type { AroundSteps } from '../protocol/middleware.js'
import type { RequestContext } from '../protocol/context.js'
import type { RefusalGuard } from '../protocol/telemetry.js'
import { isRawJson, type ResultPayload } from '../protocol/encode.js'
import { invalidParams } from '../wire/errors.js'
import { tooManyRequests } from '../wire/errors.js'
import { type InputLimits, scanInput } from './input.js'
import { withDataKeys } from '../wire/data-keys.js'
import { vouchFinite } from '../protocol/finite-arguments.js'
import type { OwnerOf } from './principal.js'
import type { Bucket, Consumed, RateLimitStore } from './rate-limit.js'
import { cleanValue } from './output-guard.js'

export interface RequestLimit {
  readonly store: RateLimitStore
  readonly bucket: Bucket
  readonly principal: OwnerOf
  readonly onStoreFailure: (error: unknown) => void
}

export interface GuardOptions {
  /** Refuses params nested too deep (-32602); hands `arguments` holding `__proto__` keys on without prototypes. */
  readonly input: InputLimits
  /** Every request counts against its principal's budget; over it: HTTP 429 with Retry-After. */
  readonly requests: RequestLimit | undefined
  /** Sanitises every string of `prompts/get` and `resources/read` results. */
  readonly output: boolean
}

/** Methods besides tools/call whose results carry text a model or a terminal will read. */
const SANITIZED = new Set(['prompts/get', 'resources/read'])

/**
 * The request guard as steps around every handler (input limits, the request limit, output cleaning of
 * prompt and resource reads). Nothing here waits unless the limit's store does: the in-process store
 * answers at once, so a request under it costs no promise; a shared store's answer is waited for.
 */
export function requestSteps(options: GuardOptions): AroundSteps {
  const { input, output, requests } = options
  const what = requests
    ? `more than ${requests.bucket.points} requests in ${requests.bucket.durationMs / 1000} s`
    : ''
  const verdict = (ctx: RequestContext, consumed: Consumed | undefined): void => {
    if (consumed && !consumed.allowed)
      throw refuse(ctx, 'rate_limit', tooManyRequests(consumed.retryAfterMs, what))
  }
  return {
    before: (ctx) => {
      // The transport checked the raw text's depth against the same limit: only `arguments` need a walk.
      const checked = ctx.exchange.checkedDepth
      const scanned = scanInput(ctx.params, input, checked !== undefined && checked <= input.maxDepth)
      if (scanned.problem) {
        vouchFinite(undefined)
        throw refuse(ctx, 'validation', invalidParams(`Invalid params: ${scanned.problem}`))
      }
      // `"__proto__"` keys are data: objects holding one go on without a prototype (wire/data-keys.ts).
      if (scanned.protoKey) ctx.params.arguments = withDataKeys(ctx.params.arguments)
      // The tool's validator need not look for Infinity again in arguments this walk found free of it.
      const args = ctx.params.arguments
      vouchFinite(!scanned.nonFinite && typeof args === 'object' && args !== null ? args : undefined)
      if (!requests) return
      let consumed
      try {
        consumed = requests.store.consume(requests.bucket, requests.principal(ctx), 1, ctx.timestamp())
      } catch (error) {
        requests.onStoreFailure(error) // a broken shared store must not take the server down
        return
      }
      if (!isThenable(consumed)) return verdict(ctx, consumed)
      return Promise.resolve(consumed).then(
        (settled) => verdict(ctx, settled),
        (error: unknown) => requests.onStoreFailure(error),
      )
    },
    after: (method) => (output && SANITIZED.has(method) ? sanitized : undefined),
  }
}

const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

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
