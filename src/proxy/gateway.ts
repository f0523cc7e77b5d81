/**
 * `defineGateway`: one server made of several upstream members, each under a namespace (`fs` offers
 * `fs_read_file`), optionally filtered by name globs. Tool and prompt names that would collide are refused
 * when the gateway is defined; one that appears later (an upstream's list change) is left out with a
 * warning, keeping the tool that was there first. Resources keep their URIs: a URI two members list is
 * served by the first. Every member is an untrusted upstream behind the gateway's guards, as in `defineProxy`.
 */
import { ToolDefinitionError } from '../features/tools/compile.js'
import { toolSearchSettings } from '../features/tools/search.js'
import { Server, type ServerOptions } from '../server.js'
import type { ServerCapabilities } from '../wire/types.js'
import { type DownstreamOptions, proxyOf, type ProxyServer } from './define.js'
import { type GatewayParts, mergeMembers } from './gateway-merge.js'
import { checkProfiles, type GatewayProfile, GatewayProfileServer } from './gateway-profiles.js'
import { type OpenUpstream, openUpstream, type UpstreamSpec } from './link.js'
import { nameFilter } from './name-filter.js'
import type { Upstream } from './upstream.js'
import { routedListing } from './routed-listing.js'
import { offersTasks } from './task-relay.js'

export { globMatcher } from './name-filter.js'

export interface GatewayMember extends UpstreamSpec {
  /** Only tools and prompts whose upstream name matches one of these globs (`*`, `?`); default all. */
  readonly include?: readonly string[]
  /** Tools and prompts whose upstream name matches one of these globs are left out. */
  readonly exclude?: readonly string[]
}

export type GatewayOptions = DownstreamOptions & {
  /** The members, by namespace (1–64 characters of `A-Z a-z 0-9 -`). */
  readonly members: Readonly<Record<string, GatewayMember>>
  /** Between namespace and name (default `_`: `fs_read_file`). */
  readonly separator?: string
  /**
   * Named subsets of the merged server's tools and prompts, each served by `gateway.profile(name)` with its
   * own tool search (at most 32; names 1–64 characters of `A-Z a-z 0-9 _ -`).
   */
  readonly profiles?: Readonly<Record<string, GatewayProfile>>
}

const NAMESPACE = /^[A-Za-z0-9-]{1,64}$/

/**
 * @internal What a gateway's member and profile servers are built from, besides their own options; reached
 * through `GatewayServer`'s constructor, which only `defineGateway` calls.
 */
interface GatewaySetup extends GatewayParts {
  /** The downstream options every endpoint shares (without the merged endpoint's `toolSearch`). */
  readonly downstream: DownstreamOptions
  readonly profiles: Readonly<Record<string, GatewayProfile>>
  /** Catalogs a merged server needs: prompts and resources when a member offers them, tasks likewise. */
  readonly lists: Pick<ServerOptions, 'prompts' | 'resources' | 'tasks'>
}

/**
 * A gateway: the merged server; `member(name)` serves one member alone over the same upstream, and
 * `profile(name)` one of its profiles.
 *
 * @example
 * ```ts
 * const gateway: GatewayServer = await defineGateway({
 *   members: { fs: { target: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '.'] } } },
 * })
 * await serveNode(gateway.member('fs'), { port: 3001 }) // the fs member alone
 * ```
 */
export class GatewayServer extends Server {
  readonly members: ReadonlyMap<string, Upstream>
  /** The names of the gateway's profiles. */
  readonly profiles: readonly string[]
  readonly #setup: GatewaySetup
  readonly #stop: () => Promise<void>

  /** @internal Built by `defineGateway`. */
  constructor(options: ServerOptions, setup: GatewaySetup, stop: () => Promise<void>) {
    super(options)
    this.#setup = setup
    this.members = new Map([...setup.opened].map(([name, open]) => [name, open.upstream]))
    this.profiles = Object.keys(setup.profiles)
    this.#stop = stop
  }

  /**
   * One member as a server of its own: its names without the namespace, filtered by its globs. Closing it
   * leaves the shared upstream open. `overrides` replace the gateway's downstream options for it (e.g.
   * `security` with the auth of its own URL).
   */
  member(name: string, overrides: Partial<DownstreamOptions> = {}): Promise<ProxyServer> {
    const opened = this.#setup.opened.get(name)
    const spec = this.#setup.members[name]
    if (!opened || !spec) return Promise.reject(new TypeError(`no gateway member ${JSON.stringify(name)}`))
    return proxyOf(opened, { ...this.#setup.downstream, name, ...overrides }, false, {
      offers: nameFilter(spec),
      via: name,
    })
  }

  /**
   * One profile as a server of its own: the merged server's tools and prompts (namespaced alike) that the
   * profile's globs let through, its resources, and the profile's tool search. It keeps its own mirrors of
   * the members, so it announces a list change only when its own list changes. Closing it leaves the
   * upstreams open; `overrides` replace the gateway's downstream options for it.
   */
  async profile(name: string, overrides: Partial<DownstreamOptions> = {}): Promise<GatewayProfileServer> {
    const setup = this.#setup
    const profile = Object.hasOwn(setup.profiles, name) ? setup.profiles[name] : undefined
    if (!profile) throw new TypeError(`no gateway profile ${JSON.stringify(name)}`)
    const search = profile.toolSearch ? toolSearchSettings(profile.toolSearch) : undefined
    // Its own change bus: every instance's profile follows the upstreams itself, and a change the merged
    // server announces need not concern this profile.
    const { changes: _shared, ...downstream } = setup.downstream
    const stops: (() => unknown)[] = []
    const server = new GatewayProfileServer(
      {
        ...downstream,
        name,
        version: downstream.version ?? '0.0.0',
        tools: [],
        ...setup.lists,
        ...(search && { toolSearch: { minTools: search.minTools } }),
        ...overrides,
      },
      name,
      async () => {
        for (const stop of stops) await stop()
      },
    )
    try {
      await mergeMembers(server, setup, nameFilter(profile), stops)
    } catch (error) {
      await server.close()
      throw error
    }
    // Checked against the first listing when the gateway was defined.
    if (search && overrides.toolSearch === undefined) server.toolSearch?.pin(search.pinned)
    return server
  }

  override async close(): Promise<void> {
    await super.close()
    await this.#stop()
  }
}

/**
 * Opens every member, checks that no two offer the same tool or prompt name, and returns the merged server.
 * Profiles are checked here (names, globs, tool search, pinned tools against the first listing) and served by
 * `gateway.profile(name)`.
 *
 * @example
 * ```ts
 * const gateway = await defineGateway({
 *   name: 'tools',
 *   version: '1.0.0',
 *   members: {
 *     fs: { target: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } },
 *     docs: { target: { url: 'https://docs.example.com/mcp' }, include: ['search*'] },
 *   },
 *   toolSearch: true,
 *   profiles: { research: { include: ['docs_*', 'fs_read_*'], toolSearch: { minTools: 10 } } },
 * })
 * ```
 */
export async function defineGateway(options: GatewayOptions): Promise<GatewayServer> {
  const { members, separator = '_', profiles: profileOption, toolSearch, ...downstream } = options
  const names = Object.keys(members)
  if (names.length === 0) throw new TypeError('defineGateway needs at least one member')
  for (const name of names) {
    if (!NAMESPACE.test(name))
      throw new TypeError(`gateway member ${JSON.stringify(name)}: use 1-64 characters from A-Z a-z 0-9 -`)
  }
  // Option mistakes fail before any member is started.
  let profiles: Readonly<Record<string, GatewayProfile>>
  let search: ReturnType<typeof toolSearchSettings> | undefined
  try {
    profiles = checkProfiles(profileOption)
    search = toolSearch ? toolSearchSettings(toolSearch) : undefined
  } catch (error) {
    throw new TypeError(`defineGateway: ${(error as Error).message}`)
  }
  const logger = downstream.logger
  const results = await Promise.allSettled(
    names.map((name) =>
      openUpstream(members[name] as GatewayMember, (message) => logger?.warn(message), downstream.telemetry),
    ),
  )
  const opened = new Map<string, OpenUpstream>()
  results.forEach((result, index) => {
    if (result.status === 'fulfilled') opened.set(names[index] as string, result.value)
  })
  const closeAll = async (): Promise<void> => {
    await Promise.all([...opened.values()].map((open) => open.upstream.close()))
  }
  const failed = results.findIndex((result) => result.status === 'rejected')
  if (failed !== -1) {
    await closeAll()
    const reason = (results[failed] as PromiseRejectedResult).reason as Error
    throw new Error(`defineGateway: member ${names[failed]}: ${reason.message}`, { cause: reason })
  }

  const capabilities: ServerCapabilities = {}
  let tasks = false
  for (const open of opened.values()) {
    if (open.discovered.capabilities.prompts) capabilities.prompts = {}
    if (open.discovered.capabilities.resources) capabilities.resources = {}
    tasks ||= offersTasks(open.discovered.capabilities)
  }
  const lists = {
    ...(capabilities.prompts && { prompts: [] }),
    ...(capabilities.resources && { resources: [] }),
    ...(downstream.tasks === undefined && tasks && { tasks: {} }),
  }
  const stops: (() => unknown)[] = []
  const setup: GatewaySetup = { opened, members, separator, downstream, profiles, lists }
  const server = new GatewayServer(
    {
      ...downstream,
      ...routedListing(
        [...opened.values()].map((open) => open.upstream),
        downstream,
      ),
      name: downstream.name ?? 'gateway',
      version: downstream.version ?? '0.0.0',
      tools: [],
      ...lists,
      // Pinned tools exist once the members are listed: pinned below.
      ...(search && { toolSearch: { minTools: search.minTools } }),
    },
    setup,
    async () => {
      for (const stop of stops) await stop()
      await closeAll()
    },
  )
  try {
    await mergeMembers(server, setup, () => true, stops)
    const offered = server.tools.enabled().map((tool) => tool.name)
    if (search) {
      checkPinned(search.pinned, offered, () => true, 'toolSearch')
      server.toolSearch?.pin(search.pinned)
    }
    for (const [name, profile] of Object.entries(profiles)) {
      if (!profile.toolSearch) continue
      const { pinned } = toolSearchSettings(profile.toolSearch)
      checkPinned(pinned, offered, nameFilter(profile), `profiles.${name}.toolSearch`)
    }
  } catch (error) {
    await server.close()
    throw error
  }
  return server
}

/** Each pinned tool must be one the endpoint offers now, or the configuration names a tool it cannot list. */
function checkPinned(
  pinned: readonly string[],
  offered: readonly string[],
  kept: (name: string) => boolean,
  where: string,
): void {
  for (const name of pinned) {
    if (!offered.includes(name))
      throw new ToolDefinitionError(
        `defineGateway: ${where}.pinned names ${JSON.stringify(name)}, which no member offers (pin namespaced names such as ${JSON.stringify(offered[0] ?? 'fs_read_file')})`,
      )
    if (!kept(name))
      throw new ToolDefinitionError(
        `defineGateway: ${where}.pinned names ${JSON.stringify(name)}, which the profile's include/exclude leave out`,
      )
  }
}
