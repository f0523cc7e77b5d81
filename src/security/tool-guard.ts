/**
 * Limits around each tool handler (the server's `wrapToolHandler`): concurrent calls per principal,
 * per-tool rate limits, and a timeout that aborts the handler's signal. Refusals are `isError` results
 * the model can read and act on ("retry in 3 s"), not protocol errors.
 */
import type { AbortSource, RequestContext } from '../protocol/context.js'
import type { CompiledTool } from '../features/tools/compile.js'
import { ToolError } from '../features/tools/errors.js'
import type { OwnerOf } from './principal.js'
import type { OwnerKey } from '../protocol/principal.js'
import { InFlightCounts } from './in-flight.js'
import type { Bucket, Consumed, RateLimitStore } from './rate-limit.js'
import { Deadlines } from '../wire/deadlines.js'

/** A server's own wrapper around each tool handler (`wrapToolHandler`): `run` resolves to the handler's value. */
export type ToolWrapper = (
  tool: CompiledTool,
  ctx: RequestContext,
  run: () => Promise<unknown>,
) => Promise<unknown>

/**
 * The guard's wrapper: `run` returns the handler's value or a promise of it, and so does the guard, so a
 * synchronous handler under the default limits costs no promise, timer or closure chain.
 */
export type GuardWrapper = (tool: CompiledTool, ctx: RequestContext, run: () => unknown) => unknown

export interface ToolGuardOptions {
  readonly principal: OwnerOf
  /** Absent when no tool limit is set. */
  readonly store: RateLimitStore | undefined
  /** The budget for a tool, or undefined when it is unlimited; absent when no tool has one. */
  readonly bucketFor: ((tool: string) => Bucket | undefined) | undefined
  readonly maxConcurrent: number | undefined
  readonly defaultTimeoutMs: number | undefined
  readonly onStoreFailure: (error: unknown) => void
}

export const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000))

function span(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`
  if (ms % 1000 === 0) return ms === 1000 ? 'second' : `${ms / 1000} s`
  return `${ms} ms`
}

const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

export function toolGuard(options: ToolGuardOptions): GuardWrapper {
  const deadlines = new Deadlines()
  const timed: GuardWrapper = (tool, ctx, run) => {
    const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs
    return timeoutMs === undefined ? run() : withTimeout(deadlines, tool.name, timeoutMs, ctx, run)
  }
  const { maxConcurrent, bucketFor } = options
  // Composed from what is on: without a concurrency cap or tool limits, a call needs no principal,
  // no bookkeeping and no extra async hop.
  if (maxConcurrent === undefined && bucketFor === undefined) return timed

  // Calls in flight per principal, bounded (see InFlightCounts).
  const inFlight = new InFlightCounts()

  const refusal = (
    tool: CompiledTool,
    ctx: RequestContext,
    bucket: Bucket,
    consumed: Extract<Consumed, { allowed: false }>,
  ): ToolError => {
    ctx.refused('rate_limit')
    return new ToolError(
      `Rate limit for tool ${tool.name} reached (${bucket.points} calls per ${span(bucket.durationMs)}); retry in ${seconds(consumed.retryAfterMs)} s.`,
    )
  }
  // Synchronous while the store answers at once (the in-process store): no promise unless the handler or
  // a shared store makes one.
  const limited = (
    tool: CompiledTool,
    ctx: RequestContext,
    run: () => unknown,
    principal: OwnerKey,
    bucket: Bucket,
  ): unknown => {
    let consumed: Consumed | PromiseLike<Consumed> | undefined
    try {
      consumed = (options.store as RateLimitStore).consume(bucket, principal, 1, ctx.timestamp())
    } catch (error) {
      options.onStoreFailure(error) // a broken shared store must not take every tool down
      return timed(tool, ctx, run)
    }
    if (!isThenable(consumed)) {
      if (!consumed.allowed) throw refusal(tool, ctx, bucket, consumed)
      return timed(tool, ctx, run)
    }
    return Promise.resolve(consumed).then(
      (settled) => {
        if (!settled.allowed) throw refusal(tool, ctx, bucket, settled)
        return timed(tool, ctx, run)
      },
      (error: unknown) => {
        options.onStoreFailure(error)
        return timed(tool, ctx, run)
      },
    )
  }

  const limitedOnly: GuardWrapper = (tool, ctx, run) => {
    const bucket = options.store ? bucketFor?.(tool.name) : undefined
    return bucket ? limited(tool, ctx, run, options.principal(ctx), bucket) : timed(tool, ctx, run)
  }
  // Without a concurrency cap nothing needs the count of calls in flight.
  if (maxConcurrent === undefined) return limitedOnly
  return (tool, ctx, run) => {
    const slot = inFlight.slot(options.principal(ctx))
    if (slot.count >= maxConcurrent) {
      ctx.refused('rate_limit')
      throw new ToolError(
        `Too many tool calls in progress (at most ${maxConcurrent} at once per caller); retry when one has finished.`,
      )
    }
    slot.count++
    // The call counts as in flight until its value, or its promise, settles.
    let settlesLater = false
    try {
      const value = limitedOnly(tool, ctx, run)
      if (!isThenable(value)) return value
      settlesLater = true
      return Promise.resolve(value).finally(() => void slot.count--)
    } finally {
      if (!settlesLater) slot.count--
    }
  }
}

/**
 * A tool call's deadline as the request sees it (`ctx.addAbortSignal`): one object per call rather than a
 * closure pair and their scope, since every call with a timeout makes one before its handler runs. The
 * `AbortController` exists only once the handler reads `ctx.signal`; `ctx.onAbort` (a proxied call follows
 * its caller that way) is told through listeners instead.
 */
class ToolDeadline implements AbortSource {
  #controller: AbortController | undefined
  #listeners: Set<() => void> | undefined
  #expired: ToolError | undefined

  signal(): AbortSignal {
    this.#controller ??= new AbortController()
    if (this.#expired) this.#controller.abort(this.#expired)
    return this.#controller.signal
  }

  onAbort(listener: () => void): () => void {
    if (this.#expired) {
      listener()
      return () => undefined
    }
    const listeners = (this.#listeners ??= new Set())
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }

  expire(error: ToolError): void {
    this.#expired = error
    this.#controller?.abort(error)
    if (this.#listeners) for (const listener of [...this.#listeners]) listener()
  }
}

/**
 * Runs the handler against its deadline; on expiry the handler's signal aborts and the caller gets a tool
 * error. A handler that returns a value rather than a promise has finished before any timer could fire, so
 * it gets no deadline at all.
 */
function withTimeout(
  deadlines: Deadlines,
  name: string,
  ms: number,
  ctx: RequestContext,
  run: () => unknown,
): unknown {
  const limit = new ToolDeadline()
  ctx.addAbortSignal(limit)
  // The request's time, which its rate limits read already: the call's deadline counts from its admission.
  const started = ctx.timestamp()
  const returned = run()
  if (!isThenable(returned)) return returned
  return new Promise((resolve, reject) => {
    const deadline = deadlines.start(
      ms,
      () => {
        const error = new ToolError(
          `Tool ${name} timed out after ${ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`} and was stopped; try a smaller request, or try again later.`,
        )
        ctx.refused('timeout')
        limit.expire(error)
        reject(error)
      },
      started,
    )
    returned.then(
      (value) => {
        deadline.cancel()
        resolve(value)
      },
      (error: unknown) => {
        deadline.cancel()
        reject(error)
      },
    )
  })
}
