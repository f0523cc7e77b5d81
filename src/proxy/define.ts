/**
 * `defineProxy`: a server definition that mirrors an upstream MCP server (a stdio command or a URL, of
 * either protocol era). It is an ordinary `Server`, so it is served by `serveNode`, `createFetchHandler` and
 * `serveStdio`, and every downstream guard applies in front of the upstream, which is untrusted like any
 * server. The upstream's tools, prompts, resources and resource templates are listed once at start and
 * again whenever the upstream announces a change; the downstream then publishes the change itself.
 */
import { ToolDefinitionError } from '../features/tools/compile.js'
import { toolSearchSettings } from '../features/tools/search.js'
import { Server, type ServerOptions } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import { META_SERVER_INFO } from '../wire/meta.js'
import type { Implementation } from '../wire/types.js'
import { isRecord } from '../wire/jsonrpc.js'
import { cleanStrings } from './mirror.js'
import { type MirrorScope, UpstreamMirror } from './upstream-mirror.js'
import { type OpenUpstream, openUpstream, type UpstreamSpec } from './link.js'
import type { Upstream } from './upstream.js'
import { routedListing } from './routed-listing.js'
import { offersLegacyTasks, offersTasks, relayName, UpstreamTaskRelay } from './task-relay.js'

/** What the downstream server is made of besides its upstream: everything `defineServer` takes but the lists. */
export type DownstreamOptions = Omit<
  ServerOptions,
  'name' | 'version' | 'tools' | 'prompts' | 'resources'
> & {
  /** Downstream identity (default: the upstream's `serverInfo`, else `proxy` / `0.0.0`). */
  readonly name?: string
  readonly version?: string
}

export type ProxyOptions = UpstreamSpec & DownstreamOptions

/**
 * A `Server` mirroring an upstream; `close()` also ends the upstream connection (and its process).
 * `upstream` is the connection it forwards through (restarts, labels).
 *
 * @example
 * ```ts
 * const proxy: ProxyServer = await defineProxy({ target: { command: 'node', args: ['server.js'] } })
 * console.log(proxy.upstream.label)
 * await proxy.close()
 * ```
 */
export class ProxyServer extends Server {
  readonly upstream: Upstream
  readonly #stop: () => Promise<void>

  constructor(options: ServerOptions, upstream: Upstream, stop: () => Promise<void>) {
    super(options)
    this.upstream = upstream
    this.#stop = stop
  }

  override async close(): Promise<void> {
    await super.close()
    await this.#stop()
  }
}

/**
 * Connects to the upstream, lists what it offers and returns the downstream server. Fails (never hangs)
 * when the upstream cannot be reached or does not answer within `startTimeoutMs`.
 *
 * @example
 * ```ts
 * const server = await defineProxy({ target: { command: 'npx', args: ['-y', 'some-mcp-server'] } })
 * await serveNode(server, { port: 8080 }) // from 'toolwire/node'
 * ```
 */
export async function defineProxy(options: ProxyOptions): Promise<ProxyServer> {
  const {
    target,
    client,
    restart,
    startTimeoutMs,
    label,
    maxResourceSubscriptions,
    maxListenRetries,
    maxHeldTasks,
    maxHeldTasksPerPrincipal,
    isolate,
    ...downstream
  } = options
  const spec: UpstreamSpec = {
    target,
    ...(maxResourceSubscriptions !== undefined && { maxResourceSubscriptions }),
    ...(maxListenRetries !== undefined && { maxListenRetries }),
    ...(maxHeldTasks !== undefined && { maxHeldTasks }),
    ...(maxHeldTasksPerPrincipal !== undefined && { maxHeldTasksPerPrincipal }),
    ...(isolate && { isolate }),
    ...(client && { client }),
    ...(restart && { restart }),
    ...(startTimeoutMs !== undefined && { startTimeoutMs }),
    ...(label !== undefined && { label }),
  }
  const logger = downstream.logger
  let opened: OpenUpstream
  try {
    opened = await openUpstream(spec, (message) => logger?.warn(message), downstream.telemetry)
  } catch (error) {
    throw new Error(`defineProxy: ${(error as Error).message}`, { cause: error })
  }
  return proxyOf(opened, downstream, true)
}

/**
 * The downstream server of an open upstream. `owns`: closing the server closes the upstream (a gateway's
 * member endpoints share the gateway's upstreams and leave them open).
 */
export async function proxyOf(
  opened: OpenUpstream,
  downstream: DownstreamOptions,
  owns: boolean,
  scope: MirrorScope = {},
): Promise<ProxyServer> {
  const { upstream, discovered, label } = opened
  const capabilities = discovered.capabilities
  // Pinned tools exist once the upstream's tools are listed: the search starts unpinned and is pinned below.
  const search = downstream.toolSearch ? toolSearchSettings(downstream.toolSearch) : undefined
  const info = discovered._meta?.[META_SERVER_INFO]
  const upstreamInfo = isRecord(info) ? (cleanStrings(info) as unknown as Partial<Implementation>) : {}
  const instructions =
    typeof discovered.instructions === 'string' ? stripControls(discovered.instructions) : undefined
  // The mirror needs the server and the server's close needs the mirror: filled in once both exist.
  const stops: (() => unknown)[] = []
  const server = new ProxyServer(
    {
      ...(instructions !== undefined && { instructions }),
      ...downstream,
      // Each caller is listed the tools its own upstream connection lists (routed-listing.ts).
      ...routedListing([upstream], downstream),
      name:
        downstream.name ??
        (typeof upstreamInfo.name === 'string' && upstreamInfo.name ? upstreamInfo.name : 'proxy'),
      version:
        downstream.version ??
        (typeof upstreamInfo.version === 'string' && upstreamInfo.version ? upstreamInfo.version : '0.0.0'),
      tools: [],
      ...(capabilities.prompts && { prompts: [] }),
      ...(capabilities.resources && { resources: [] }),
      // A task store only when the upstream may answer with tasks (or the options bring one).
      ...(downstream.tasks === undefined && offersTasks(capabilities) && { tasks: {} }),
      ...(search && { toolSearch: { minTools: search.minTools } }),
    },
    upstream,
    async () => {
      for (const stop of stops) await stop()
      if (owns) await upstream.close()
    },
  )
  const via = relayName(upstream, scope.via ?? '', opened.spec.target, offersLegacyTasks(capabilities))
  server.taskEngine?.relayTo(new UpstreamTaskRelay(new Map([[via, upstream]]), new Map([[via, opened.spec]])))
  const mirror = new UpstreamMirror(server, upstream, capabilities, label, { ...scope, via }, opened.spec)
  try {
    await mirror.refresh()
    if (search) {
      const offered = server.tools.enabled().map((tool) => tool.name)
      const missing = search.pinned.find((name) => !offered.includes(name))
      if (missing !== undefined)
        throw new ToolDefinitionError(
          `defineProxy: toolSearch.pinned names ${JSON.stringify(missing)}, which the upstream does not offer`,
        )
      server.toolSearch?.pin(search.pinned)
    }
  } catch (error) {
    await server.close()
    throw error
  }
  stops.push(
    upstream.onConnect((client) => mirror.connected(client)),
    () => mirror.stop(),
  )
  mirror.connected(await upstream.client())
  return server
}
