/** `toolwire inspect`: the page's server, the session behind it, the browser, and a clean exit. */
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { PINNABLE_VERSIONS } from '../../client/era.js'
import { openBrowser } from '../auth/browser.js'
import { parseTarget, type Target, UsageError } from '../client/target.js'
import { forTerminal } from '../terminal-text.js'
import { serveInspector, type RunningInspector } from './local-server.js'
import { InspectorSession } from './session.js'

export interface InspectFlags {
  header?: string[]
  env?: string[]
  root?: string[]
  timeout?: string
  protocolVersion?: string
  port?: string
  open?: boolean
}

const say = (line: string): void => void process.stderr.write(`${line}\n`)

export function sessionFor(flags: InspectFlags): InspectorSession {
  const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout)
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError('--timeout expects milliseconds > 0')
  const pinned = flags.protocolVersion
  if (pinned !== undefined && !PINNABLE_VERSIONS.includes(pinned))
    throw new UsageError(`--protocol-version must be one of ${PINNABLE_VERSIONS.join(', ')}`)
  return new InspectorSession({
    client: {
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(pinned !== undefined && { protocolVersion: pinned }),
    },
    roots: (flags.root ?? []).map((folder) => ({ uri: pathToFileURL(resolve(folder)).href })),
  })
}

export function portOf(flags: InspectFlags): number {
  if (flags.port === undefined) return 0
  const port = Number(flags.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port expects 0 to 65535')
  return port
}

/** Serves the page, prints its URL on stdout (the only thing on stdout) and opens the browser. */
export async function startPage(
  session: InspectorSession,
  flags: InspectFlags,
  beforeExit: () => Promise<void> = async () => {},
): Promise<RunningInspector> {
  const running = await serveInspector(session, { port: portOf(flags) })
  console.log(running.url)
  if (flags.open !== false) {
    void openBrowser(running.url).then((opened) => {
      if (!opened) say('Open the URL above in a browser.')
    })
  }
  const stop = (): void =>
    void beforeExit()
      .then(() => session.close())
      .then(() => running.close())
      .finally(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return running
}

export async function runInspect(operands: string[], flags: InspectFlags): Promise<void> {
  // Without a target the page asks for one (a URL or a configured name).
  const target: Target | undefined =
    operands.length === 0 && !process.argv.includes('--')
      ? undefined
      : parseTarget(operands, flags.header ?? [], flags.env ?? [])
  const session = sessionFor(flags)
  await startPage(session, flags)
  if (!target) return
  say(`Inspecting ${forTerminal(target.describe)}`)
  await session.open(target).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    say(`toolwire inspect: ${forTerminal(message, { multiline: true })}`)
    session.setProblem(message)
  })
}
