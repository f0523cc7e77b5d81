/** `toolwire serve <module>` and `toolwire demo`: serve a server over Streamable HTTP or stdio. */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Command } from 'commander'
import { defineServer, Server } from '../../server.js'
import { isToolDefinition } from '../../features/tools/define.js'
import { type ServeOptions, serveNode } from '../../transports/http/node.js'
import { serveStdio } from '../../transports/stdio/index.js'
import { createDemoServer } from '../../demo/server.js'
import { LEGACY_VERSIONS } from '../../legacy/versions.js'
import { PROTOCOL_VERSION } from '../../wire/meta.js'
import { type ClusterMember, type ClusterOptions, joinCluster } from '../cluster.js'
import { type OtelExporter, otelOption, startOtel } from '../otel.js'
import { prepareTypeScript, typeScriptLoadFailure } from '../typescript.js'
import { collect, type OpenAPIFlags, openAPILoadOptions, openAPIServer } from './openapi.js'

const isServer = (value: unknown): value is Server =>
  value instanceof Server ||
  (typeof value === 'object' &&
    value !== null &&
    typeof (value as Server).handle === 'function' &&
    'tools' in value)

/**
 * Finds the server a module exports: `default` or `server` (a Server, a factory, or an array of tools).
 * A factory is called with the cluster pieces (`changes`, `handleStore`, `rateLimitStore`, `sessionStore`,
 * `requestStateSecret`) so the server it builds can join a cluster.
 */
export async function loadServer(modulePath: string, member?: ClusterMember): Promise<Server> {
  const file = resolve(modulePath)
  // Said in one line: the loader's own error names an internal chunk as the importer.
  if (!existsSync(file)) throw new Error(`${modulePath}: no such file (looked for ${file})`)
  await prepareTypeScript(modulePath, file)
  const module = (await import(pathToFileURL(file).href).catch((error: unknown) => {
    throw typeScriptLoadFailure(modulePath, error) ?? error
  })) as Record<string, unknown>
  for (const key of ['default', 'server', 'tools']) {
    let value = module[key]
    const factory = typeof value === 'function'
    if (factory) value = await (value as (member?: ClusterMember) => unknown)(member)
    if (isServer(value)) {
      if (!factory && member?.changes)
        throw new Error(
          `${modulePath} exports a ready server: to run it as a cluster member, export a factory that passes the cluster's changes, handleStore, rateLimitStore and requestStateSecret to defineServer`,
        )
      return value
    }
    if (Array.isArray(value) && value.length > 0 && value.every(isToolDefinition)) {
      return defineServer({ name: modulePath, version: '0.0.0', tools: value })
    }
  }
  throw new Error(
    `${modulePath} exports no server: export default a defineServer(...) result, a factory, or tools`,
  )
}

export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value)
  if (!match) throw new Error(`--http expects HOST:PORT or PORT, got ${value}`)
  const port = Number(match[2])
  if (port > 65535) throw new Error(`port ${port} is out of range`)
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port }
}

interface ServeFlags extends ClusterOptions, OpenAPIFlags {
  readonly http?: string
  readonly stdio?: boolean
  readonly otel?: OtelExporter
  readonly openapi?: string
}

/** Joins the cluster the flags name; a cluster member needs the shared secret, or multi-round calls break. */
async function cluster(options: ServeFlags): Promise<ClusterMember> {
  if (options.redis !== undefined && options.secretEnv === undefined)
    throw new Error('--redis needs --secret-env NAME: every cluster member must sign requestState alike')
  if (options.redis !== undefined && options.stdio) throw new Error('--redis is for --http servers')
  return joinCluster(options)
}

export async function run(
  server: Server,
  options: ServeFlags,
  banner?: (url: string) => string,
  member?: ClusterMember,
  /** The OpenTelemetry SDK's shutdown (`--otel`): flushes buffered spans and metrics before exit. */
  shutdownOtel?: () => Promise<void>,
  /** More for the HTTP listener (`bridge`: the HTTP+SSE transport, CORS, health). */
  http: Omit<ServeOptions, 'host' | 'port'> = {},
): Promise<void> {
  const release = async (): Promise<void> => {
    await member?.close()
    await shutdownOtel?.()
  }
  if (options.stdio) {
    const connection = serveStdio(server)
    const stop = (): void =>
      void connection
        .close()
        .then(release)
        .then(() => process.exit(0))
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    await connection.closed
    await release()
    process.exit(0)
  }
  const { host, port } = parseHostPort(options.http ?? `127.0.0.1:${process.env.PORT ?? 3000}`)
  const running = await serveNode(server, { ...http, host, port })
  console.log(banner ? banner(running.url) : `Serving ${server.info.name} on ${running.url}`)
  const stop = (): void =>
    void running
      .close()
      .then(release)
      .then(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

/**
 * The command that runs this CLI where the demo was started, for the banner's examples: the repository's
 * `npm start` and `npm run cli` use the script, `npx toolwire demo` and a project's scripts npx, a direct `node …/main.js` the same
 * file, and an installed `toolwire` (global, or on PATH) its name.
 */
export function howToRunCli(
  env: NodeJS.ProcessEnv = process.env,
  script: string | undefined = process.argv[1],
): string {
  if (env.npm_package_name === 'toolwire' && ['start', 'cli'].includes(env.npm_lifecycle_event ?? ''))
    return 'npm run -s cli --'
  // npx, or a project's own npm script (`node_modules/.bin/toolwire`): npx finds the same local install.
  if (env.npm_command === 'exec' || (script ?? '').includes('node_modules/.bin/')) return 'npx toolwire'
  if (script !== undefined && /\.[cm]?js$/.test(script)) {
    const shown = relative(process.cwd(), script)
    return `node ${shown.startsWith('..') || isAbsolute(shown) ? script : shown}`
  }
  return 'toolwire'
}

/** The revisions a server answers: this one, and the 2025-era ones unless legacy serving is off. */
const servedVersions = (server: Server): string[] => [
  PROTOCOL_VERSION,
  ...(server.legacy ? LEGACY_VERSIONS : []),
]

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('serve the MCP server a JS module exports (default export or `server`)')
    .argument('[module]', 'path to the module')
    .option('--http <host:port>', 'serve Streamable HTTP (default 127.0.0.1:$PORT or 127.0.0.1:3000)')
    .option('--stdio', 'serve over stdin/stdout')
    .option('--redis <url>', 'cluster member: share list changes, handles and rate limits through Redis')
    .option('--secret-env <name>', 'environment variable holding the requestState secret all members share')
    .addOption(otelOption())
    .option('--openapi <document>', "serve an HTTP API's operations as tools (OpenAPI 3.0, 3.1, Swagger 2.0)")
    .option('--base-url <url>', "with --openapi: where calls go (default: the document's servers)")
    .option('--header <line>', "with --openapi: 'Name: value' sent with every call (repeatable)", collect)
  openAPILoadOptions(command, 'with --openapi: ').action(
    async (modulePath: string | undefined, options: ServeFlags) => {
      if (options.http && options.stdio) throw new Error('choose one of --http and --stdio')
      if (options.openapi !== undefined) {
        if (modulePath !== undefined) throw new Error('give a module or --openapi, not both')
        if (options.redis !== undefined) throw new Error('--redis is for module servers, not --openapi')
        const shutdownOtel = await startOtel(options.otel, 'serve')
        return run(await openAPIServer(options.openapi, options), options, undefined, undefined, shutdownOtel)
      }
      if (modulePath === undefined)
        throw new Error("missing required argument 'module' (or --openapi <document>)")
      // Before the module loads: its server (telemetry unset) and its own instrumentation see the SDK.
      const shutdownOtel = await startOtel(options.otel, 'serve')
      const member = await cluster(options)
      await run(await loadServer(modulePath, member), options, undefined, member, shutdownOtel)
    },
  )

  program
    .command('demo')
    .description(
      'serve the demo: utility tools, a notebook that asks for input (resources, a prompt), a basket on handles',
    )
    .option('--http <host:port>', 'address to serve on (default 127.0.0.1:$PORT or 127.0.0.1:3000)')
    .option('--stdio', 'serve over stdin/stdout')
    .option('--redis <url>', 'cluster member: share list changes, baskets and rate limits through Redis')
    .option('--secret-env <name>', 'environment variable holding the requestState secret all members share')
    .addOption(otelOption())
    .action(async (options: ServeFlags) => {
      const shutdownOtel = await startOtel(options.otel, 'demo')
      const member = await cluster(options)
      // TOOLWIRE_STATE_DB=<file> keeps the demo's baskets in SQLite, across restarts.
      const stateFile = process.env.TOOLWIRE_STATE_DB
      // Loaded only when asked for: better-sqlite3 is an optional peer dependency.
      const store =
        member.handleStore ??
        (stateFile ? new (await import('../../handles/sqlite.js')).SqliteHandleStore(stateFile) : undefined)
      const demo = createDemoServer({
        ...(store && { store }),
        ...(member.changes && { changes: member.changes }),
        ...(member.rateLimitStore && { rateLimitStore: member.rateLimitStore }),
        ...(member.sessionStore && { sessionStore: member.sessionStore }),
        // One demo process needs no shared secret, so it takes a random one of its own and the server's
        // warning about a per-process secret (meant for several instances) stays silent.
        requestStateSecret:
          member.requestStateSecret ??
          process.env.TOOLWIRE_STATE_SECRET ??
          randomBytes(32).toString('base64url'),
      })
      const cli = howToRunCli()
      await run(
        demo,
        options,
        (url) =>
          [
            `toolwire demo serving MCP ${servedVersions(demo).join(', ')} on ${url}`,
            `Try it (in another terminal):`,
            `  ${cli} list ${url}`,
            `  ${cli} call ${url} arithmetic op=add a=2 b=3`,
            `  ${cli} call ${url} countdown seconds=3`,
          ].join('\n'),
        member,
        shutdownOtel,
      )
    })
}
