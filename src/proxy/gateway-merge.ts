/**
 * Mirrors every member of a gateway into one server, each member's tools and prompts under its namespace:
 * the merged `/mcp` server, and each profile's server (the same names, fewer of them). Every server keeps
 * mirrors of its own over the shared upstreams, so its catalogs, and the list changes it announces, hold
 * only what it offers.
 */
import type { Server } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import type { GatewayMember } from './gateway.js'
import type { OpenUpstream } from './link.js'
import { nameFilter } from './name-filter.js'
import { offersLegacyTasks, relayName, UpstreamTaskRelay } from './task-relay.js'
import { UpstreamMirror } from './upstream-mirror.js'

/** The open members of a gateway and how their names are made. */
export interface GatewayParts {
  readonly opened: ReadonlyMap<string, OpenUpstream>
  readonly members: Readonly<Record<string, GatewayMember>>
  /** Between namespace and name (`fs_read_file`). */
  readonly separator: string
}

/**
 * Relays the members' tasks through `server` and mirrors each member into it; `keep` sees each downstream
 * (namespaced) name and may leave it out. The returned stops end the mirrors. Two members offering the same
 * name fail it, naming both (a silent winner would hide a tool from the model).
 */
export async function mergeMembers(
  server: Server,
  parts: GatewayParts,
  keep: (name: string) => boolean,
  stops: (() => unknown)[],
): Promise<void> {
  const { opened, members, separator } = parts
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
  const mirrors = new Map<string, UpstreamMirror>()
  for (const [name, open] of opened) {
    const offered = nameFilter(members[name] as GatewayMember)
    const rename = (tool: string): string => `${name}${separator}${tool}`
    const mirror = new UpstreamMirror(
      server,
      open.upstream,
      open.discovered.capabilities,
      `${name} (${open.label})`,
      { rename, offers: (tool) => offered(tool) && keep(rename(tool)), via: via(name) },
      open.spec,
    )
    mirrors.set(name, mirror)
    stops.push(() => mirror.stop())
  }
  await refusingCollisions(mirrors)
  for (const [name, mirror] of mirrors) {
    const upstream = (opened.get(name) as OpenUpstream).upstream
    stops.push(upstream.onConnect((client) => mirror.connected(client)))
    mirror.connected(await upstream.client())
  }
}

/** Lists each member into the server one after the other; a name an earlier member took fails it. */
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
