/**
 * Where the CLI connects: a URL, a server named in a configuration file (.mcp.json, .vscode/mcp.json,
 * Claude Desktop's), or (after `--`) a command it spawns and talks to over stdio.
 */
import { connect, type Client, type ClientOptions } from '../../client/index.js'
import { StdioTransport } from '../../client/stdio-entry.js'
import type { ClientTransport } from '../../client/transport.js'
import { commandAuth } from '../auth/options.js'
import { jsonForTerminal } from '../terminal-text.js'
import { configFiles, configuredNames, findConfiguredServer } from './config.js'

export interface Target {
  /** Operands before the target's end: tool name and key=value pairs. */
  readonly rest: string[]
  readonly describe: string
  /** The stdio server's command line, when it was given after `--`. */
  readonly command?: readonly string[]
  /** Whether the server is a process spawned over stdio (after `--`, or a configured command). */
  readonly stdio: boolean
  open(options: ClientOptions, recorder?: Recorder): Client
}

/**
 * Lets a caller see every message (the inspector's message log): a fetch for HTTP targets, a transport
 * wrapper for stdio ones.
 */
export interface Recorder {
  fetch(): (request: Request) => Promise<Response>
  transport(inner: ClientTransport): ClientTransport
}

function stdioClient(
  target: { command: string; args: readonly string[]; env: Record<string, string> },
  options: ClientOptions,
  recorder: Recorder | undefined,
): Client {
  const transport = new StdioTransport(target)
  return connect(recorder ? recorder.transport(transport) : transport, options)
}

/**
 * Fails before any server is started when the operand the command needs (a URI, a tool or prompt name) is
 * missing. After `--` everything belongs to the server command, so a URI given there is named in the error.
 */
export function requireOperand(target: Target, what: string, usage: string): void {
  if (target.rest.length > 0) return
  const last = target.command?.at(-1)
  const misplaced =
    last !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(last)
      ? `; ${jsonForTerminal(last)} comes after --, so it is an argument of the server command`
      : ''
  throw new UsageError(target.command ? `give ${what} before --: ${usage}${misplaced}` : `give ${what}`)
}

/**
 * Splits the command line: `URL rest...` or `rest... -- command args...`. The raw argv is consulted because
 * commander drops the `--` marker itself.
 */
export function parseTarget(
  operands: readonly string[],
  headers: readonly string[],
  envPairs: readonly string[] = [],
  argv = process.argv,
): Target {
  const env = parseEnv(envPairs)
  const marker = argv.indexOf('--')
  if (marker !== -1) {
    const command = argv.slice(marker + 1)
    const [program, ...args] = command
    if (!program)
      throw new UsageError('nothing after --: give the server command to run, e.g. -- node server.js')
    const rest = operands.slice(0, operands.length - command.length)
    if (headers.length > 0) throw new UsageError('--header applies to HTTP targets only')
    return {
      rest,
      describe: command.join(' '),
      command,
      stdio: true,
      open: (options, recorder) => stdioClient({ command: program, args, env }, options, recorder),
    }
  }
  const [first, ...rest] = operands
  if (!first) {
    throw new UsageError(
      'give a server URL, a configured server name, or -- followed by a command to run over stdio',
    )
  }
  if (/^https?:\/\//i.test(first)) {
    if (envPairs.length > 0) throw new UsageError('--env applies to stdio servers only')
    return httpTarget(rest, first, first, parseHeaders(headers))
  }
  const configured = findConfiguredServer(first)
  if (!configured) {
    const known = configuredNames()
    throw new UsageError(
      `${first} is neither an http(s) URL nor a server configured in ${configFiles().join(', ')}` +
        (known.length > 0 ? ` (configured: ${known.join(', ')})` : '') +
        '; to run a stdio server put its command after --',
    )
  }
  const describe = `${configured.name} (from ${configured.source})`
  if (configured.url !== undefined) {
    if (envPairs.length > 0) throw new UsageError('--env applies to stdio servers only')
    return httpTarget(rest, describe, configured.url, { ...configured.headers, ...parseHeaders(headers) })
  }
  if (headers.length > 0) throw new UsageError('--header applies to HTTP targets only')
  const command = configured.command as string
  const args = configured.args ?? []
  const mergedEnv = { ...configured.env, ...env }
  return {
    rest,
    describe,
    stdio: true,
    open: (options, recorder) => stdioClient({ command, args, env: mergedEnv }, options, recorder),
  }
}

function httpTarget(rest: string[], describe: string, url: string, headers: Record<string, string>): Target {
  // An explicit Authorization header wins; otherwise the stored OAuth tokens are used (toolwire login).
  const explicit = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
  const auth = explicit ? {} : { auth: commandAuth() }
  return {
    rest,
    describe,
    stdio: false,
    open: (options, recorder) =>
      connect({ url, headers, ...(recorder && { fetch: recorder.fetch() }) }, { ...options, ...auth }),
  }
}

function parseHeaders(headers: readonly string[]): Record<string, string> {
  const parsed: Record<string, string> = {}
  for (const header of headers) {
    const colon = header.indexOf(':')
    if (colon <= 0) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(header)}`)
    parsed[header.slice(0, colon).trim()] = header.slice(colon + 1).trim()
  }
  return parsed
}

/** `--env KEY=VALUE` pairs for a stdio server (added to the CLI's own environment). */
function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (const pair of pairs) {
    const equals = pair.indexOf('=')
    if (equals <= 0) throw new UsageError(`--env expects KEY=VALUE, got ${JSON.stringify(pair)}`)
    env[pair.slice(0, equals)] = pair.slice(equals + 1)
  }
  return env
}

/** A mistake on the command line (exit status 2, like any failure to talk to the server). */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}
