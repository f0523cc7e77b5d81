/**
 * Gateway profiles: named subsets of a gateway's tools, each served as a server of its own (the CLI serves
 * `/profiles/<name>/mcp`) with its own tool search. A profile is a view for a model, not an access boundary:
 * the merged endpoint of the same gateway offers everything.
 */
import { toolSearchSettings, type ToolSearchOptions } from '../features/tools/search.js'
import { Server } from '../server.js'

/** One profile: which of the gateway's (namespaced) tools and prompts it offers, and its tool search. */
export interface GatewayProfile {
  /** Only tools and prompts whose namespaced name (`fs_read_file`) matches one of these globs; default all. */
  readonly include?: readonly string[]
  /** Tools and prompts whose namespaced name matches one of these globs are left out. */
  readonly exclude?: readonly string[]
  /** Tool search on this profile, as `defineServer`'s (`pinned` names namespaced tools); default off. */
  readonly toolSearch?: true | ToolSearchOptions | false
}

/**
 * Profiles one gateway may define: each keeps its own mirror of every member (a change stream on each
 * upstream, a listing after each change), so their number multiplies the load on the members.
 *
 * @example
 * ```ts
 * if (Object.keys(profiles).length > MAX_PROFILES) console.error(`at most ${MAX_PROFILES} profiles`)
 * ```
 */
export const MAX_PROFILES = 32

/** A profile name is one safe URL path segment: no `.`, `/`, `%` or space. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

const PROFILE_KEYS = ['include', 'exclude', 'toolSearch']

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Checks a `profiles` option (or config entry) and returns it typed; throws a TypeError naming the first
 * problem (`profiles.ops.include must be an array of glob strings`).
 */
export function checkProfiles(profiles: unknown): Readonly<Record<string, GatewayProfile>> {
  if (profiles === undefined) return {}
  if (!isObject(profiles))
    throw new TypeError('profiles must be an object of profile names to { include, exclude, toolSearch }')
  const names = Object.keys(profiles)
  if (names.length > MAX_PROFILES)
    throw new TypeError(`profiles: ${names.length} profiles, at most ${MAX_PROFILES}`)
  for (const name of names) {
    if (!PROFILE_NAME.test(name))
      throw new TypeError(
        `profiles: ${JSON.stringify(name)} is not a profile name (1-64 characters from A-Z a-z 0-9 _ -, starting with a letter or digit)`,
      )
    const where = `profiles.${name}`
    const profile = profiles[name]
    if (!isObject(profile)) throw new TypeError(`${where} must be an object { include, exclude, toolSearch }`)
    const unknown = Object.keys(profile).filter((key) => !PROFILE_KEYS.includes(key))
    if (unknown.length > 0)
      throw new TypeError(
        `${where} has unknown keys ${unknown.join(', ')} (it takes ${PROFILE_KEYS.join(', ')})`,
      )
    for (const field of ['include', 'exclude'] as const) {
      const globs = profile[field]
      if (globs !== undefined && !(Array.isArray(globs) && globs.every((glob) => typeof glob === 'string')))
        throw new TypeError(`${where}.${field} must be an array of glob strings`)
    }
    const search = profile.toolSearch
    if (search !== undefined && search !== false)
      toolSearchSettings(search as true | ToolSearchOptions, `${where}.toolSearch`)
  }
  return profiles as Record<string, GatewayProfile>
}

/**
 * One profile of a gateway, served on its own; closing it leaves the gateway's upstreams open.
 *
 * @example
 * ```ts
 * const gateway = await defineGateway({
 *   members: { fs: { target: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '.'] } } },
 *   profiles: { reader: { include: ['fs_read_*', 'fs_list_*'], toolSearch: true } },
 * })
 * const reader: GatewayProfileServer = await gateway.profile('reader')
 * await serveNode(reader, { port: 3002 })
 * ```
 */
export class GatewayProfileServer extends Server {
  /** The profile's name. */
  readonly profile: string
  readonly #stop: () => Promise<void>

  constructor(options: ConstructorParameters<typeof Server>[0], profile: string, stop: () => Promise<void>) {
    super(options)
    this.profile = profile
    this.#stop = stop
  }

  override async close(): Promise<void> {
    await super.close()
    await this.#stop()
  }
}
