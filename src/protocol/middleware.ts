/** The single extension mechanism: koa-style `(ctx, next)` middleware around every method handler. */
import type { RequestContext } from './context.js'
import type { ResultPayload } from './encode.js'

export type Next = () => Promise<ResultPayload>
export type Middleware = (ctx: RequestContext, next: Next) => Promise<ResultPayload>
export type MethodHandler = (ctx: RequestContext) => Promise<ResultPayload> | ResultPayload

/** Composes middleware around a handler once, at definition time. */
export function compose(middleware: readonly Middleware[], handler: MethodHandler): MethodHandler {
  if (middleware.length === 0) return handler
  return (ctx) => {
    let index = -1
    const run = (i: number): Promise<ResultPayload> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once'))
      index = i
      const layer = middleware[i]
      if (!layer) return Promise.resolve(handler(ctx))
      return layer(ctx, () => run(i + 1))
    }
    return run(0)
  }
}
