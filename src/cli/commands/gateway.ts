/**
 * `toolwire gateway <config.json> --http HOST:PORT`: every server of an `mcpServers` file behind one
 * toolwire server. Each member is served alone at `/servers/<name>/mcp` and all of them together, each
 * under its namespace (`<name>_<tool>`), at `/mcp`; a member's `include` / `exclude` globs filter its tools
 * and prompts. Each of the file's `profiles` is served at `/profiles/<name>/mcp`, and `toolSearch` (top level,
 * or a profile's) turns tool search on. One upstream process (or connection) per member serves every endpoint.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Command } from 'commander'
import { toolSearchSettings, type ToolSearchOptions } from '../../features/tools/search.js'
import type { ServerLogger } from '../../protocol/dispatcher.js'
import type { IsolateOptions } from '../../proxy/upstream-pool.js'
import { defineGateway, type GatewayMember, type GatewayOptions } from '../../proxy/gateway.js'
import { checkProfiles } from '../../proxy/gateway-profiles.js'
import type { Server } from '../../server.js'
import { createNodeHandler, serveNode } from '../../transports/http/node.js'
import { bindPolicy } from '../../transports/http/bind-hosts.js'
import { commandAuth } from '../auth/options.js'
import { serversIn } from '../client/config.js'
import { parseJsonc } from '../client/jsonc.js'
import { type ClusterOptions, joinCluster } from '../cluster.js'
import { UsageError } from '../client/target.js'
import { type OtelExporter, otelOption, startOtel } from '../otel.js'
import { forTerminal } from '../terminal-text.js'
import { type DownstreamAuthFlags, downstreamAuth, withDownstreamAuth } from '../auth/downstream.js'
import { servedUrl } from './bridge.js'
import { corsOrigins, type HttpExtras, httpExtras } from './http-extras.js'
import { parseHostPort } from './serve.js'

/** An endpoint beside the merged one: `…/mcp` → `…/servers/<name>/mcp` or `…/profiles/<name>/mcp`. */
const besideUrl = (merged: string, kind: 'servers' | 'profiles', name: string): string =>
  new URL(`${kind}/${name}/mcp`, new URL('.', merged)).href

interface GatewayFlags extends DownstreamAuthFlags, ClusterOptions, HttpExtras {
  readonly http?: string
  readonly otel?: OtelExporter
}

const say = (line: string): void => void process.stderr.write(`${line}\n`)

const logger: ServerLogger = {
  warn: (message) => say(`warning: ${forTerminal(message, { multiline: true })}`),
  error: (message) => say(`error: ${forTerminal(message, { multiline: true })}`),
}

const globs = (value: unknown, field: string, name: string): string[] | undefined => {
  if (value === undefined) return undefined
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[]
  throw new UsageError(`server ${JSON.stringify(name)}: ${field} must be an array of glob strings`)
}

/** A member's `isolate`: `true`, or its bounds (`maxProcesses`, `idleTimeoutMs`). */
function isolateOf(value: unknown, name: string): IsolateOptions | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true) return { per: 'principal' }
  // Without it, a command member still gets a process per capability set whose tools differ (link.ts).
  const bound = (field: 'maxProcesses' | 'idleTimeoutMs'): number | undefined => {
    const got = (value as Record<string, unknown>)[field]
    if (got === undefined) return undefined
    if (typeof got === 'number' && Number.isInteger(got) && got > 0) return got
    throw new UsageError(`server ${JSON.stringify(name)}: isolate.${field} must be a positive integer`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`server ${JSON.stringify(name)}: isolate must be true, false or an object`)
  const maxProcesses = bound('maxProcesses')
  const idleTimeoutMs = bound('idleTimeoutMs')
  return {
    per: 'principal',
    ...(maxProcesses !== undefined && { maxProcesses }),
    ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
  }
}

/** The gateway's members, from the file's entries. */
function membersOf(file: string): Record<string, GatewayMember> {
  const members: Record<string, GatewayMember> = {}
  for (const { server, entry } of serversIn(file)) {
    const include = globs(entry.include, 'include', server.name)
    const exclude = globs(entry.exclude, 'exclude', server.name)
    const filters = { ...(include && { include }), ...(exclude && { exclude }) }
    const client = { clientInfo: { name: 'toolwire-gateway', version: '0.1.0' }, warn: logger.warn }
    if (server.url !== undefined) {
      const headers = server.headers ?? {}
      // An explicit Authorization header wins; otherwise the stored `toolwire login` tokens are used.
      const explicit = Object.keys(headers).some((key) => key.toLowerCase() === 'authorization')
      members[server.name] = {
        target: { url: server.url, headers },
        client: { ...client, ...(!explicit && { auth: commandAuth() }) },
        label: server.name,
        ...filters,
      }
    } else {
      const isolate = isolateOf(entry.isolate, server.name)
      members[server.name] = {
        ...(isolate && { isolate }),
        target: {
          command: server.command as string,
          args: server.args ?? [],
          ...(server.env && { env: server.env }),
        },
        client,
        label: server.name,
        ...filters,
      }
    }
  }
  if (Object.keys(members).length === 0) throw new UsageError(`${file}: no servers in mcpServers`)
  return members
}

/** The file's top-level listener settings: `sse` (boolean), `cors` (origins), `health` (a path). */
function listenerSettings(file: string): HttpExtras {
  // membersOf read the file first and reported a file it cannot read.
  const document = parseJsonc(readFileSync(file, 'utf8'))
  if (typeof document !== 'object' || document === null) return {}
  const { sse, cors, health } = document as Record<string, unknown>
  if (sse !== undefined && typeof sse !== 'boolean')
    throw new UsageError(`${file}: sse must be true or false`)
  if (cors !== undefined && !(Array.isArray(cors) && cors.every((item) => typeof item === 'string')))
    throw new UsageError(`${file}: cors must be an array of origins`)
  if (health !== undefined && typeof health !== 'string')
    throw new UsageError(`${file}: health must be a path such as "/healthz"`)
  return {
    ...(sse !== undefined && { sse }),
    ...(cors !== undefined && { cors: cors as string[] }),
    ...(health !== undefined && { health }),
  }
}

/** The file's `toolSearch` (for `/mcp`) and `profiles`, checked before any member starts. */
function searchSettings(file: string): Pick<GatewayOptions, 'toolSearch' | 'profiles'> {
  const document = parseJsonc(readFileSync(file, 'utf8'))
  if (typeof document !== 'object' || document === null) return {}
  const { toolSearch, profiles } = document as Record<string, unknown>
  try {
    const checked = checkProfiles(profiles)
    const search = toolSearch === undefined || toolSearch === false ? undefined : toolSearch
    if (search !== undefined) toolSearchSettings(search as true | ToolSearchOptions)
    return {
      ...(search !== undefined && { toolSearch: search as true | ToolSearchOptions }),
      ...(profiles !== undefined && { profiles: checked }),
    }
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`)
  }
}

/**
 * Answers what no endpoint serves: 404, naming the profile when the path asks for one this gateway does
 * not have (plain text, as for any other unknown path: a client shows it in its error).
 */
function notFound(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://gateway').pathname
  const profile = /^\/profiles\/([^/]*)\/(?:mcp|sse|messages)$/.exec(path)?.[1]
  const body =
    profile === undefined
      ? 'Not found: the MCP endpoints are /mcp, /servers/<name>/mcp and /profiles/<name>/mcp\n'
      : `Not found: this gateway has no profile ${JSON.stringify(decodedSegment(profile).slice(0, 64))}\n`
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(body)
}

const decodedSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export function registerGateway(program: Command): void {
  const command = program
    .command('gateway')
    .description(
      'serve every server of an mcpServers file: each at /servers/<name>/mcp, all together (namespaced) at /mcp',
    )
    .argument(
      '<config>',
      'a JSON file with mcpServers (or servers), as .mcp.json; optional profiles and toolSearch (docs: Bridge and gateway)',
    )
    .option('--http <host:port>', 'address to serve on (default 127.0.0.1:$PORT or 127.0.0.1:3000)')
    .option('--redis <url>', 'cluster member: share list changes and rate limits through Redis')
    .option('--secret-env <name>', 'environment variable holding the requestState secret all members share')
    .option('--no-sse', 'do not also serve the 2024-11-05 HTTP+SSE transport (GET /sse, POST /messages)')
    .option(
      '--cors <origins>',
      'let pages on these origins call (comma-separated scheme://host[:port]); config: cors',
    )
    .option(
      '--health <path>',
      'answer GET <path>: 200 while every member answers ping, else 503; config: health',
    )
    .addOption(otelOption())
  withDownstreamAuth(command).action(async (file: string, flags: GatewayFlags) => {
    const auth = downstreamAuth(flags, servedUrl(flags.http))
    const members = membersOf(resolve(file))
    const search = searchSettings(resolve(file))
    // Flags win over the file's top-level `sse`, `cors` and `health`.
    const fromFile = listenerSettings(resolve(file))
    const settings: HttpExtras = {
      ...fromFile,
      ...(flags.sse === false && { sse: false }),
      ...(flags.cors !== undefined && { cors: flags.cors }),
      ...(flags.health !== undefined && { health: flags.health }),
    }
    if (flags.redis !== undefined && flags.secretEnv === undefined)
      throw new UsageError(
        '--redis needs --secret-env NAME: every gateway instance must sign requestState alike',
      )
    // Behind a load balancer, every instance shares list changes and rate limits (Redis) and the secret that
    // seals multi-round state, so any instance answers any request.
    const cluster = await joinCluster(flags)
    const shutdownOtel = await startOtel(flags.otel, 'gateway')
    const secret =
      cluster.requestStateSecret ?? process.env.TOOLWIRE_STATE_SECRET ?? randomBytes(32).toString('base64url')
    const rateLimitStore = cluster.rateLimitStore
    const gatewaySecurity = rateLimitStore ? { rateLimit: { store: rateLimitStore } } : {}
    const gateway = await defineGateway({
      name: 'toolwire-gateway',
      version: '0.1.0',
      members,
      ...search,
      logger,
      requestState: { secret },
      ...(cluster.changes && { changes: cluster.changes }),
      // 2025-era sessions (log level, subscriptions) are shared too: any instance serves any session.
      ...(cluster.sessionStore && { legacy: { stateStore: cluster.sessionStore } }),
      // Downstream spans, and each member call as a child of the call that made it.
      ...(shutdownOtel && { telemetry: true }),
      ...((auth || rateLimitStore) && { security: { ...gatewaySecurity, ...(auth && { auth }) } }),
    })
    const { host, port } = parseHostPort(flags.http ?? `127.0.0.1:${process.env.PORT ?? 3000}`)
    const extras = httpExtras(settings, () => gateway.members)
    const origins = corsOrigins(settings.cors)
    const originPolicy = bindPolicy(host, origins ? { extraOrigins: origins } : {})
    const alone: Server[] = []
    let fallback: (req: IncomingMessage, res: ServerResponse) => void = notFound
    const endpoints = [
      ...gateway.profiles.map((name) => ['profiles', name] as const),
      ...Object.keys(members).map((name) => ['servers', name] as const),
    ]
    for (const [kind, name] of endpoints.reverse()) {
      // Each endpoint is a resource of its own (RFC 8707): its own metadata and token audience.
      const ownAuth = downstreamAuth(
        {
          ...flags,
          ...(flags.resource !== undefined && { resource: besideUrl(flags.resource, kind, name) }),
        },
        besideUrl(servedUrl(flags.http), kind, name),
      )
      const overrides = ownAuth ? { security: { ...gatewaySecurity, auth: ownAuth } } : {}
      const server = await (kind === 'servers'
        ? gateway.member(name, overrides)
        : gateway.profile(name, overrides))
      alone.push(server)
      fallback = createNodeHandler(server, {
        path: `/${kind}/${name}/mcp`,
        originPolicy,
        ...(extras.sse && {
          sse: { path: `/${kind}/${name}/sse`, messagesPath: `/${kind}/${name}/messages` },
        }),
        ...(origins && { corsOrigins: origins }),
        fallback,
      })
    }
    const running = await serveNode(gateway, { ...extras, host, port, fallback })
    // The merged endpoint's URL alone on stdout, once listening: scripts wait for this line.
    console.log(running.url)
    const stop = (): void =>
      void Promise.all(alone.map((member) => member.close()))
        .then(() => running.close())
        .then(() => cluster.close())
        .then(() => shutdownOtel?.())
        .then(() => process.exit(0))
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  })
}
