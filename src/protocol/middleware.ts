/** The single extension mechanism: koa-style `(ctx, next)` middleware around every method handler. */
import type { RequestContext } from './context.js'
import type { ResultPayload } from './encode.js'

export type Next = () => Promise<ResultPayload>
/**
 * Koa-style middleware around every method handler: call `next()` to run the rest of the chain.
 *
 * @example
 * ```ts
 * const audit: Middleware = async (ctx, next) => {
 *   const result = await next()
 *   auditLog.write({ method: ctx.method, caller: ctx.principal }) // { kind, id }: never a bare subject
 *   return result
 * }
 * const server = defineServer({ name: 'x', version: '1.0.0', middleware: [audit] })
 * ```
 */
export type Middleware = (ctx: RequestContext, next: Next) => Promise<ResultPayload>
export type MethodHandler = (ctx: RequestContext) => PromiseLike<ResultPayload> | ResultPayload

/**
 * Steps run around every handler, outside the middleware: the security layer's input check, request limit
 * and output cleaning. Unlike middleware they add no promise unless one of them has to wait (a shared
 * rate-limit store), so a synchronous handler's answer can be written in the same tick as the request was
 * read.
 */
export interface AroundSteps {
  /** Throws (or rejects) to refuse the request; a promise when the check has to wait. */
  before(ctx: RequestContext): void | PromiseLike<void>
  /** The rewrite of `method`'s results, or undefined when they go out as they are. */
  after(method: string): ((result: ResultPayload) => ResultPayload) | undefined
}

/** The handler with its middleware, and the around steps (when any) outside both. */
export function composeAround(
  method: string,
  around: AroundSteps | undefined,
  middleware: readonly Middleware[],
  handler: MethodHandler,
): MethodHandler {
  const inner = compose(middleware, handler)
  if (!around) return inner
  const after = around.after(method)
  if (!after) {
    return (ctx) => {
      const checked = around.before(ctx)
      return isThenable(checked) ? Promise.resolve(checked).then(() => inner(ctx)) : inner(ctx)
    }
  }
  const innerThenAfter: MethodHandler = (ctx) => {
    const result = inner(ctx)
    return isThenable(result) ? Promise.resolve(result).then(after) : after(result)
  }
  return (ctx) => {
    const checked = around.before(ctx)
    return isThenable(checked)
      ? Promise.resolve(checked).then(() => innerThenAfter(ctx))
      : innerThenAfter(ctx)
  }
}

const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

/** Composes middleware around a handler once, at definition time. */
export function compose(middleware: readonly Middleware[], handler: MethodHandler): MethodHandler {
  if (middleware.length === 0) return handler
  const [only] = middleware
  if (middleware.length === 1 && only) {
    // The common case (the security layer alone): one closure per request instead of a chain of them.
    return (ctx) => {
      let called = false
      return only(ctx, () => {
        if (called) return Promise.reject(new Error('next() called more than once'))
        called = true
        return settle(handler, ctx)
      })
    }
  }
  return (ctx) => {
    let index = -1
    const run = (i: number): Promise<ResultPayload> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once'))
      index = i
      const layer = middleware[i]
      if (!layer) return settle(handler, ctx)
      return layer(ctx, () => run(i + 1))
    }
    return run(0)
  }
}

/** The handler's result as a promise; a synchronous throw becomes a rejection, as middleware expects. */
function settle(handler: MethodHandler, ctx: RequestContext): Promise<ResultPayload> {
  try {
    return Promise.resolve(handler(ctx))
  } catch (error) {
    return Promise.reject(error as Error)
  }
}
