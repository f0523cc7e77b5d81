/**
 * Which upstream connection serves a downstream call, so that the upstream sees the client capabilities
 * that call's caller declared (client/sampling, client/elicitation, client/roots: a server may only ask
 * what the client declared, and some list tools only to clients that declared what they ask).
 *
 * - The shared connection declares every relayed capability; it lists the proxy's offer and follows its
 *   changes, and serves the callers that declared all of them.
 * - `per: 'principal'`: each principal gets a connection of its own per set of declared capabilities.
 * - `per: 'capabilities'`: callers that declared another set are probed once per set: a connection declaring exactly
 *   that set lists its tools; when the list equals the shared one, the connection is stopped and the set
 *   is served by the shared connection (its questions the caller did not declare are refused by the relay);
 *   when it differs, the set keeps the connection, and its callers see the tools it lists.
 *
 * Every such connection is one entry of the `UpstreamPool`, so `maxProcesses` bounds them all.
 */
import type { Client } from '../client/client.js'
import type { RequestContext } from '../protocol/context.js'
import type { ClientCapabilities } from '../wire/types.js'
import {
  capabilityKey,
  groupCapabilities,
  RELAYED_CAPABILITIES,
  relayedCapabilities,
} from './capability-groups.js'
import type { CallerPool, Upstream } from './upstream.js'
import type { UpstreamPool } from './upstream-pool.js'

interface Route {
  /** The pool key of the caller's connection; undefined when the shared connection serves it. */
  readonly key: string | undefined
}

const SHARED: Route = { key: undefined }

const SHARED_KEY = capabilityKey(RELAYED_CAPABILITIES)

export class CallerRoutes implements CallerPool {
  readonly #shared: Upstream
  readonly #pool: UpstreamPool
  readonly #perPrincipal: boolean
  readonly #configured: ClientCapabilities | undefined
  /** Per capability key (without `isolate`): whether its callers have a connection of their own. */
  readonly #own = new Map<string, boolean>()
  readonly #probes = new Map<string, Promise<boolean>>()
  /** The tool names each own connection listed last, by pool key: what its callers see. */
  readonly #names = new Map<string, ReadonlySet<string>>()
  readonly #keys = new WeakMap<ClientCapabilities, string>()

  constructor(
    shared: Upstream,
    pool: (onStop: (key: string) => void) => UpstreamPool,
    perPrincipal: boolean,
    configured: ClientCapabilities | undefined,
  ) {
    this.#shared = shared
    this.#pool = pool((key) => this.#names.delete(key))
    this.#perPrincipal = perPrincipal
    this.#configured = configured
  }

  get size(): number {
    return this.#pool.size
  }

  /** The caller's capability key, computed once per capabilities object (a 2025-era session keeps one). */
  #keyOf(ctx: RequestContext): string {
    const declared = ctx.meta.clientCapabilities
    let key = this.#keys.get(declared)
    if (key === undefined) {
      key = capabilityKey(relayedCapabilities(declared))
      this.#keys.set(declared, key)
    }
    return key
  }

  #capabilities(ctx: RequestContext): ClientCapabilities {
    return groupCapabilities(relayedCapabilities(ctx.meta.clientCapabilities), this.#configured)
  }

  /** The route when it is known without waiting; undefined while a capability set is being probed. */
  #known(ctx: RequestContext): Route | undefined {
    const key = this.#keyOf(ctx)
    if (this.#perPrincipal) return { key: `${ctx.ownerKey}\n${key}` }
    if (key === SHARED_KEY) return SHARED
    const own = this.#own.get(key)
    return own === undefined ? undefined : own ? { key } : SHARED
  }

  async #route(ctx: RequestContext): Promise<Route> {
    const known = this.#known(ctx)
    if (known) return known
    const key = this.#keyOf(ctx)
    let probe = this.#probes.get(key)
    if (!probe) {
      probe = this.#probe(key, this.#capabilities(ctx)).finally(() => this.#probes.delete(key))
      this.#probes.set(key, probe)
    }
    return (await probe) ? { key } : SHARED
  }

  /** Lists the tools with and without this capability set; the answer is kept for the set. */
  async #probe(key: string, capabilities: ClientCapabilities): Promise<boolean> {
    const [own, shared] = await Promise.all([
      this.#pool.use(key, capabilities, (client) => client.listTools({ fresh: true })),
      this.#shared.use((client) => client.listTools()),
    ])
    const names = new Set(own.tools.map((tool) => tool.name))
    const same = names.size === shared.tools.length && shared.tools.every((tool) => names.has(tool.name))
    if (same) this.#pool.release(key)
    else this.#names.set(key, names)
    this.#own.set(key, !same)
    return !same
  }

  /** Runs a downstream call's request on the connection that declares what its caller declared. */
  use<T>(
    ctx: RequestContext,
    work: (client: Client) => Promise<T>,
    signal?: AbortSignal | (() => AbortSignal),
  ): Promise<T> {
    // Known after the first call of a capability set: no promise of its own on the way.
    const known = this.#known(ctx)
    if (known) return this.#run(known, ctx, work, signal)
    return this.#route(ctx).then((route) => this.#run(route, ctx, work, signal))
  }

  #run<T>(
    route: Route,
    ctx: RequestContext,
    work: (client: Client) => Promise<T>,
    signal: AbortSignal | (() => AbortSignal) | undefined,
  ): Promise<T> {
    if (route.key === undefined) return this.#shared.use(work, signal)
    return this.#pool.use(route.key, this.#capabilities(ctx), work, signal)
  }

  /**
   * Before a `tools/list`: the caller's route is settled and, when it has a connection of its own, the tools
   * that connection lists are known (the client's list cache answers until the upstream announces a change).
   */
  async prepare(ctx: RequestContext): Promise<void> {
    const route = await this.#route(ctx)
    if (route.key === undefined) return
    const key = route.key
    const listed = await this.#pool.use(key, this.#capabilities(ctx), (client) => client.listTools())
    this.#names.set(key, new Set(listed.tools.map((tool) => tool.name)))
  }

  /** Whether the caller's connection lists the upstream tool `name` (true while that is not known). */
  lists(ctx: RequestContext, name: string): boolean {
    const route = this.#known(ctx)
    if (route?.key === undefined) return true
    return this.#names.get(route.key)?.has(name) ?? true
  }

  close(): Promise<void> {
    return this.#pool.close()
  }
}
