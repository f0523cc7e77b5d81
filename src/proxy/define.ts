/**
 * `defineProxy`: a server definition that mirrors an upstream MCP server (a stdio command or a URL, of
 * either protocol era). It is an ordinary `Server`, so it is served by `serveNode`, `createFetchHandler` and
 * `serveStdio`, and every downstream guard applies in front of the upstream, which is untrusted like any
 * server. The upstream's tools, prompts, resources and resource templates are listed once at start and
 * again whenever the upstream announces a change; the downstream then publishes the change itself.
 */
import type { Client, ClientOptions } from '../client/client.js'
import { connect } from '../client/connect.js'
import { StdioTransport } from '../client/stdio.js'
import { Server, type ServerOptions } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import { META_SERVER_INFO } from '../wire/meta.js'
import type { DiscoverResult, Implementation } from '../wire/types.js'
import { isRecord } from '../wire/jsonrpc.js'
import { cleanStrings } from './mirror.js'
import { UpstreamMirror } from './upstream-mirror.js'
import { type RestartOptions, Upstream } from './upstream.js'

/** A stdio server to spawn (one process shared by every downstream caller). */
export interface StdioUpstream {
  readonly command: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** The upstream's stderr: passed through to ours (default), dropped, or piped. */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe'
}

/** A Streamable HTTP (or 2025-era HTTP+SSE) server. */
export interface HttpUpstream {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
}

export type ProxyTarget = StdioUpstream | HttpUpstream | (() => Client)

export interface ProxyOptions extends Omit<
  ServerOptions,
  'name' | 'version' | 'tools' | 'prompts' | 'resources'
> {
  /** The upstream server: a command, a URL, or a function that opens a new toolwire `Client` each time. */
  readonly target: ProxyTarget
  /** Downstream identity (default: the upstream's `serverInfo`, else `proxy` / `0.0.0`). */
  readonly name?: string
  readonly version?: string
  /** Options of the upstream client (timeouts, auth, budget …). */
  readonly client?: ClientOptions
  /** Backoff between restarts of a crashed stdio upstream. */
  readonly restart?: RestartOptions
  /** How the upstream is named in errors and warnings (default: its URL without query, or its command line). */
  readonly label?: string
  /** How long the upstream may take to answer `server/discover` at start (default 10 s). */
  readonly startTimeoutMs?: number
}

/** A `Server` mirroring an upstream; `close()` also ends the upstream connection (and its process). */
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

function describe(target: ProxyTarget): string {
  if (typeof target === 'function') return 'the upstream server'
  if ('url' in target) return stripControls(target.url.replace(/[?#].*$/, ''))
  return stripControls([target.command, ...(target.args ?? [])].join(' '))
}

function opener(target: ProxyTarget, options: ClientOptions): () => Client {
  if (typeof target === 'function') return target
  if ('url' in target)
    return () => connect({ url: target.url, ...(target.headers && { headers: target.headers }) }, options)
  return () =>
    connect(
      new StdioTransport({
        command: target.command,
        ...(target.args && { args: [...target.args] }),
        ...(target.env && { env: { ...target.env } }),
        ...(target.cwd !== undefined && { cwd: target.cwd }),
        ...(target.stderr !== undefined && { stderr: target.stderr }),
      }),
      options,
    )
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
  const { target, client: clientOptions, restart, startTimeoutMs, label: named, ...serverOptions } = options
  const label = named === undefined ? describe(target) : stripControls(named)
  const logger = serverOptions.logger
  const warn = clientOptions?.warn ?? ((message: string) => (logger ? logger.warn(message) : undefined))
  const sync: { current?: (client: Client) => void } = {}
  const upstream = new Upstream(
    opener(target, {
      ...clientOptions,
      warn,
      discoverTimeoutMs: startTimeoutMs ?? clientOptions?.discoverTimeoutMs ?? 10_000,
    }),
    label,
    restart,
    (client) => sync.current?.(client),
  )
  let discovered: DiscoverResult
  try {
    discovered = await upstream.use((client) => client.discover())
  } catch (error) {
    await upstream.close()
    throw new Error(`defineProxy: ${(error as Error).message}`, { cause: error })
  }
  const capabilities = discovered.capabilities
  let stopMirror = async (): Promise<void> => {}
  const info = discovered._meta?.[META_SERVER_INFO]
  const upstreamInfo = isRecord(info) ? (cleanStrings(info) as unknown as Partial<Implementation>) : {}
  const instructions =
    typeof discovered.instructions === 'string' ? stripControls(discovered.instructions) : undefined
  const server = new ProxyServer(
    {
      ...(instructions !== undefined && { instructions }),
      ...serverOptions,
      name:
        options.name ??
        (typeof upstreamInfo.name === 'string' && upstreamInfo.name ? upstreamInfo.name : 'proxy'),
      version:
        options.version ??
        (typeof upstreamInfo.version === 'string' && upstreamInfo.version ? upstreamInfo.version : '0.0.0'),
      tools: [],
      ...(capabilities.prompts && { prompts: [] }),
      ...(capabilities.resources && { resources: [] }),
    },
    upstream,
    async () => {
      await stopMirror()
      await upstream.close()
    },
  )
  const mirror = new UpstreamMirror(server, upstream, capabilities, label)
  await mirror.refresh()
  stopMirror = () => mirror.stop()
  sync.current = (client) => mirror.connected(client)
  mirror.connected(await upstream.client())
  return server
}
