/**
 * `toolwire bridge`: put any MCP server behind toolwire.
 *
 *   toolwire bridge --http 127.0.0.1:8080 -- <command> [args…]   a stdio server as Streamable HTTP
 *   toolwire bridge <url> --http 127.0.0.1:8080                  an HTTP server re-served
 *   toolwire bridge <url> --stdio                                a remote server over stdio
 *
 * The upstream is reached with the same target parsing as `list` and `call` (URL, configured name, or a
 * command after `--`; stored `toolwire login` tokens for URLs) and served like `toolwire serve`.
 */
import { randomBytes } from 'node:crypto'
import type { Command } from 'commander'
import type { ClientOptions } from '../../client/index.js'
import { PINNABLE_VERSIONS } from '../../client/era.js'
import { defineProxy } from '../../proxy/define.js'
import { parseTarget, UsageError } from '../client/target.js'
import { type OtelExporter, otelOption, startOtel } from '../otel.js'
import { forTerminal } from '../terminal-text.js'
import { type DownstreamAuthFlags, downstreamAuth, withDownstreamAuth } from '../auth/downstream.js'
import { type HttpExtras, httpExtras } from './http-extras.js'
import { parseHostPort, run } from './serve.js'

/** The URL a server served on `--http` (or its default) will have: the default resource for auth. */
export function servedUrl(http: string | undefined): string {
  const { host, port } = parseHostPort(http ?? `127.0.0.1:${process.env.PORT ?? 3000}`)
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`
}

interface BridgeFlags extends DownstreamAuthFlags, HttpExtras {
  /** `--no-rate-limit` sets this false. */
  rateLimit?: boolean
  http?: string
  stdio?: boolean
  header?: string[]
  env?: string[]
  timeout?: string
  protocolVersion?: string
  isolate?: boolean
  otel?: OtelExporter
}

const say = (line: string): void => void process.stderr.write(`${line}\n`)

function upstreamOptions(flags: BridgeFlags): ClientOptions {
  const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout)
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError('--timeout expects milliseconds > 0')
  const pinned = flags.protocolVersion
  if (pinned !== undefined && !PINNABLE_VERSIONS.includes(pinned)) {
    throw new UsageError(
      `--protocol-version ${JSON.stringify(pinned)} is not a revision this client speaks; use one of ${PINNABLE_VERSIONS.join(', ')}`,
    )
  }
  return {
    clientInfo: { name: 'toolwire-bridge', version: '0.1.0' },
    // Logs and warnings go to stderr: with --stdio, stdout carries the protocol.
    warn: (message) => say(`warning: ${forTerminal(message, { multiline: true })}`),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(pinned !== undefined && { protocolVersion: pinned }),
  }
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

export function registerBridge(program: Command): void {
  const command = program
    .command('bridge')
    .description(
      'serve another MCP server through toolwire: toolwire bridge --http HOST:PORT -- <command>  or  toolwire bridge <url> --http HOST:PORT | --stdio',
    )
    .argument(
      '[target...]',
      'server URL, configured server name, or -- followed by the command of a stdio server',
    )
    .option(
      '--http <host:port>',
      'serve Streamable HTTP on this address (default 127.0.0.1:$PORT or 127.0.0.1:3000)',
    )
    .option('--stdio', 'serve over stdin/stdout')
    .option(
      '--no-sse',
      'with --http, do not also serve the 2024-11-05 HTTP+SSE transport (GET /sse, POST /messages)',
    )
    .option(
      '--cors <origins>',
      'with --http, let pages on these origins call (comma-separated scheme://host[:port])',
    )
    .option(
      '--health <path>',
      'with --http, answer GET <path> with 200 while the upstream answers ping, else 503',
    )
    .option(
      '--isolate',
      'give each caller (principal) its own upstream process per set of client capabilities it declares (at most 16 at once)',
    )
    .option('--no-rate-limit', 'turn off the per-caller request and tool-call rate limits (load tests)')
    .option('-H, --header <header>', 'HTTP header for the upstream, "Name: value" (repeatable)', collect)
    .option('-e, --env <KEY=VALUE>', 'environment variable for a stdio upstream (repeatable)', collect)
    .option('--timeout <ms>', 'give up on an upstream request after this many milliseconds (default 60000)')
    .option(
      '--protocol-version <rev>',
      `speak this MCP revision to the upstream instead of discovering its era (${PINNABLE_VERSIONS.join(', ')})`,
    )
    .addOption(otelOption())
  withDownstreamAuth(command).action(async (operands: string[], flags: BridgeFlags) => {
    if (flags.http && flags.stdio) throw new UsageError('choose one of --http and --stdio')
    const auth = flags.stdio ? undefined : downstreamAuth(flags, servedUrl(flags.http))
    if (flags.stdio && (flags.cors ?? flags.health) !== undefined)
      throw new UsageError('--cors and --health are for --http')
    if (flags.stdio && (flags.bearerTokenEnv ?? flags.jwksUrl ?? flags.issuer) !== undefined)
      throw new UsageError('--stdio serves the one process that started it: auth flags are for --http')
    const target = parseTarget(operands, flags.header ?? [], flags.env ?? [])
    if (target.rest.length > 0) {
      throw new UsageError(
        `unexpected ${forTerminal(target.rest.join(' '))}: bridge takes one upstream server`,
      )
    }
    const shutdownOtel = await startOtel(flags.otel, 'bridge')
    const server = await defineProxy({
      // Downstream spans, and upstream calls as their children.
      ...(shutdownOtel && { telemetry: true }),
      // Opened with the proxy's options, as a gateway member is: the client capabilities it relays among
      // them (without them the upstream asks nothing and may hide the tools that ask).
      client: upstreamOptions(flags),
      target: (options) => target.open(options),
      label: target.describe,
      // Each caller's upstream declares what that caller declared (docs: Capabilities and isolation): per
      // principal with --isolate, else per capability set for a stdio server whose tools depend on it.
      ...((flags.isolate || target.stdio) && {
        isolate: { per: flags.isolate ? 'principal' : 'capabilities' },
      }),
      // One bridge process needs no shared secret (as for `toolwire demo`): a random one of its own, set
      // explicitly so the warning meant for several instances stays silent.
      requestState: {
        secret: process.env.TOOLWIRE_STATE_SECRET ?? randomBytes(32).toString('base64url'),
      },
      logger: {
        warn: (message) => say(`warning: ${forTerminal(message, { multiline: true })}`),
        error: (message) => say(`error: ${forTerminal(message, { multiline: true })}`),
      },
      ...((auth || flags.rateLimit === false) && {
        security: { ...(auth && { auth }), ...(flags.rateLimit === false && { rateLimit: false }) },
      }),
    })
    const extras = httpExtras(flags, () => new Map([['upstream', server.upstream]]))
    // The URL alone on stdout, once the server listens: scripts wait for this line.
    await run(
      server,
      flags.stdio ? { stdio: true } : flags.http ? { http: flags.http } : {},
      (url) => url,
      undefined,
      shutdownOtel,
      extras,
    )
  })
}
