/**
 * What a caller sees listed when its calls go to an upstream connection of its own (caller-routes.ts): the
 * tools that connection lists, as the upstream would list them to that caller directly. The proxy's catalog
 * holds what the shared connection lists (every relayed capability declared, so the most tools); a
 * `tools/list` first settles the caller's connection and its list, and the tool visibility then hides what
 * that connection does not list, for `tools/list` and `tools/call` alike.
 */
import type { RequestContext } from '../protocol/context.js'
import type { Middleware } from '../protocol/middleware.js'
import type { ServerOptions } from '../server.js'
import { CallerRoutes } from './caller-routes.js'
import type { Upstream } from './upstream.js'

interface Origin {
  readonly upstream: Upstream
  readonly name: string
}

/** The upstream tool behind each mirrored tool, by its handler (the compiled tool keeps the handler). */
const origins = new WeakMap<object, Origin>()

/** Records that the downstream tool with this handler calls the upstream tool `name`. */
export function recordToolOrigin(handler: object, upstream: Upstream, name: string): void {
  origins.set(handler, { upstream, name })
}

type Listing = Pick<ServerOptions, 'middleware' | 'toolVisibility'>

/**
 * The downstream options that list each caller its own connection's tools, over the application's own
 * `middleware` and `toolVisibility`; nothing is added when no upstream routes callers apart.
 */
export function routedListing(upstreams: readonly Upstream[], own: Listing): Listing {
  const routed = upstreams
    .map((upstream) => upstream.pool)
    .filter((pool): pool is CallerRoutes => pool instanceof CallerRoutes)
  if (routed.length === 0) return own
  const prepare: Middleware = async (ctx, next) => {
    if (ctx.method === 'tools/list') await Promise.all(routed.map((routes) => routes.prepare(ctx)))
    return next()
  }
  const visible = own.toolVisibility
  return {
    middleware: [prepare, ...(own.middleware ?? [])],
    toolVisibility: (tool, ctx: RequestContext) => {
      if (visible && !visible(tool, ctx)) return false
      const origin = origins.get(tool.handler)
      const routes = origin?.upstream.pool
      return !(routes instanceof CallerRoutes) || routes.lists(ctx, (origin as Origin).name)
    },
  }
}
