/**
 * `defineGateway`: one server made of several upstream members, each under a namespace (`fs` offers
 * `fs_read_file`), optionally filtered by name globs. Tool and prompt names that would collide are refused
 * when the gateway is defined; one that appears later (an upstream's list change) is left out with a
 * warning, keeping the tool that was there first. Resources keep their URIs: a URI two members list is
 * served by the first. Every member is an untrusted upstream behind the gateway's guards, as in `defineProxy`.
 */
import { Server } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import type { ServerCapabilities } from '../wire/types.js'
import { type DownstreamOptions, proxyOf, type ProxyServer } from './define.js'
import { type OpenUpstream, openUpstream, type UpstreamSpec } from './link.js'
import type { Upstream } from './upstream.js'
import { routedListing } from './routed-listing.js'
import { UpstreamMirror } from './upstream-mirror.js'
import { offersLegacyTasks, offersTasks, relayName, UpstreamTaskRelay } from './task-relay.js'

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
}

const NAMESPACE = /^[A-Za-z0-9-]{1,64}$/

/**
 * A glob over names: `*` any run of characters, `?` one character, everything else literal. The gateway's
 * `include`/`exclude` lists use it.
 *
 * @example
 * ```ts
 * const offered = globMatcher(['read_*', 'list_?'])
 * offered('read_file') // true
 * offered('write_file') // false
 * ```
 */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  const patterns = globs.map(
    (glob) =>
      new RegExp(
        `^${[...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')}$`,
        's',
      ),
  )
  return (name) => patterns.some((pattern) => pattern.test(name))
}

function offers(member: GatewayMember): (name: string) => boolean {
  const included = member.include && member.include.length > 0 ? globMatcher(member.include) : () => true
  const excluded = member.exclude && member.exclude.length > 0 ? globMatcher(member.exclude) : () => false
  return (name) => included(name) && !excluded(name)
}

/**
 * A gateway: the merged server; `member(name)` serves one member alone over the same upstream.
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
  readonly #opened: ReadonlyMap<string, OpenUpstream>
  readonly #specs: Readonly<Record<string, GatewayMember>>
  readonly #downstream: DownstreamOptions
  readonly #stop: () => Promise<void>

  constructor(
    options: ConstructorParameters<typeof Server>[0],
    opened: ReadonlyMap<string, OpenUpstream>,
    specs: Readonly<Record<string, GatewayMember>>,
    downstream: DownstreamOptions,
    stop: () => Promise<void>,
  ) {
    super(options)
    this.#opened = opened
    this.#specs = specs
    this.members = new Map([...opened].map(([name, open]) => [name, open.upstream]))
    this.#downstream = downstream
    this.#stop = stop
  }

  /**
   * One member as a server of its own: its names without the namespace, filtered by its globs. Closing it
   * leaves the shared upstream open. `overrides` replace the gateway's downstream options for it (e.g.
   * `security` with the auth of its own URL).
   */
  member(name: string, overrides: Partial<DownstreamOptions> = {}): Promise<ProxyServer> {
    const opened = this.#opened.get(name)
    const spec = this.#specs[name]
    if (!opened || !spec) return Promise.reject(new TypeError(`no gateway member ${JSON.stringify(name)}`))
    return proxyOf(opened, { ...this.#downstream, name, ...overrides }, false, {
      offers: offers(spec),
      via: name,
    })
  }

  override async close(): Promise<void> {
    await super.close()
    await this.#stop()
  }
}

/**
 * Opens every member, checks that no two offer the same tool or prompt name, and returns the merged server.
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
 * })
 * ```
 */
export async function defineGateway(options: GatewayOptions): Promise<GatewayServer> {
  const { members, separator = '_', ...downstream } = options
  const names = Object.keys(members)
  if (names.length === 0) throw new TypeError('defineGateway needs at least one member')
  for (const name of names) {
    if (!NAMESPACE.test(name))
      throw new TypeError(`gateway member ${JSON.stringify(name)}: use 1-64 characters from A-Z a-z 0-9 -`)
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
  const stops: (() => unknown)[] = []
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
      ...(capabilities.prompts && { prompts: [] }),
      ...(capabilities.resources && { resources: [] }),
      ...(downstream.tasks === undefined && tasks && { tasks: {} }),
    },
    opened,
    members,
    downstream,
    async () => {
      for (const stop of stops) await stop()
      await closeAll()
    },
  )
  const via = (name: string): string => {
    const open = opened.get(name) as OpenUpstream
    const heldHere = offersLegacyTasks(open.discovered.capabilities)
    return relayName(open.upstream, name, (members[name] as GatewayMember).target, heldHere)
  }
  server.taskEngine?.relayTo(
    new UpstreamTaskRelay(
      new Map([...opened].map(([name, open]) => [via(name), open.upstream])),
      new Map([...opened].map(([name, open]) => [via(name), open.spec])),
    ),
  )
  try {
    const mirrors = new Map<string, UpstreamMirror>()
    for (const [name, open] of opened) {
      const member = members[name] as GatewayMember
      mirrors.set(
        name,
        new UpstreamMirror(
          server,
          open.upstream,
          open.discovered.capabilities,
          `${name} (${open.label})`,
          {
            rename: (tool) => `${name}${separator}${tool}`,
            offers: offers(member),
            via: via(name),
          },
          open.spec,
        ),
      )
    }
    await refusingCollisions(mirrors)
    for (const [name, mirror] of mirrors) {
      const upstream = (opened.get(name) as OpenUpstream).upstream
      stops.push(
        upstream.onConnect((client) => mirror.connected(client)),
        () => mirror.stop(),
      )
      mirror.connected(await upstream.client())
    }
  } catch (error) {
    await server.close()
    throw error
  }
  return server
}

/**
 * Lists each member into the server one after the other; a name already taken by an earlier member fails
 * the definition, naming both (a silent winner would hide a tool from the model).
 */
async function refusingCollisions(mirrors: ReadonlyMap<string, UpstreamMirror>): Promise<void> {
  const owners = new Map<string, string>()
  for (const [name, mirror] of mirrors) {
    await mirror.refresh((kind, key) => {
      const owner = owners.get(`${kind}:${key}`)
      if (owner !== undefined) {
        throw new TypeError(
          `defineGateway: member ${name} collides with member ${owner}: both offer the ${kind} ${JSON.stringify(stripControls(key))}`,
        )
      }
    })
    for (const key of mirror.toolNames) owners.set(`tool:${key}`, name)
    for (const key of mirror.promptNames) owners.set(`prompt:${key}`, name)
  }
}
