/** Where the CLI connects: a URL, or (after `--`) a command it spawns and talks to over stdio. */
import { connect, type Client, type ClientOptions } from '../../client/index.js'
import { connectStdio } from '../../client/stdio-entry.js'
import { commandAuth } from '../auth/options.js'

export interface Target {
  /** Operands before the target's end: tool name and key=value pairs. */
  readonly rest: string[]
  readonly describe: string
  open(options: ClientOptions): Client
}

/**
 * Splits the command line: `URL rest...` or `rest... -- command args...`. The raw argv is consulted because
 * commander drops the `--` marker itself.
 */
export function parseTarget(
  operands: readonly string[],
  headers: readonly string[],
  argv = process.argv,
): Target {
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
      open: (options) => connectStdio({ command: program, args }, options),
    }
  }
  const [url, ...rest] = operands
  if (!url) throw new UsageError('give a server URL, or -- followed by a command to run over stdio')
  if (!/^https?:\/\//i.test(url)) {
    throw new UsageError(`${url} is not an http(s) URL; to run a stdio server put its command after --`)
  }
  const parsedHeaders: Record<string, string> = {}
  for (const header of headers) {
    const colon = header.indexOf(':')
    if (colon <= 0) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(header)}`)
    parsedHeaders[header.slice(0, colon).trim()] = header.slice(colon + 1).trim()
  }
  // An explicit Authorization header wins; otherwise the stored OAuth tokens are used (toolwire login).
  const explicit = Object.keys(parsedHeaders).some((name) => name.toLowerCase() === 'authorization')
  const auth = explicit ? {} : { auth: commandAuth() }
  return {
    rest,
    describe: url,
    open: (options) => connect({ url, headers: parsedHeaders }, { ...options, ...auth }),
  }
}

/** A mistake on the command line (exit status 2, like any failure to talk to the server). */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}
