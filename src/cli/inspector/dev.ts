/**
 * `toolwire dev <module>`: serves the module and keeps the inspector page on it, reloading on every change.
 *
 * The module runs as `toolwire serve --stdio` in a child process (a fresh module graph per reload: an
 * in-process re-import would keep the module's own imports cached), behind a proxy (`defineProxy`) that
 * this process serves over Streamable HTTP on one stable address. On a change the module is first loaded in
 * a throwaway process: if it fails, its error is shown in the terminal and on the page and the running
 * version stays; if it loads, the upstream process is replaced and the proxy lists it again, publishing what
 * changed as `list_changed` to every connected client (server/tools §List Changed Notification), the page
 * included. The next good save after a broken one recovers the same way.
 */
import { spawn } from 'node:child_process'
import { watch } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { connect } from '../../client/connect.js'
import { StdioTransport } from '../../client/stdio.js'
import { defineProxy, type ProxyServer } from '../../proxy/define.js'
import { serveNode, type RunningServer } from '../../transports/http/node.js'
import { parseTarget } from '../client/target.js'
import { parseHostPort } from '../commands/serve.js'
import { forTerminal } from '../terminal-text.js'
import { findTsx, isTypeScript, nativeTypeScript, typeScriptAdvice } from '../typescript.js'
import { sessionFor, startPage, type InspectFlags } from './run.js'

export interface DevFlags extends InspectFlags {
  http?: string
}

/** Quiet time after a change before reloading: an editor's save is often several writes. */
const SETTLE_MS = 150
/** Characters of a failed load's output kept to show on the page. */
const MAX_FAILURE_CHARS = 8_000
/** Attempts to reach the replaced upstream before giving up on a reload (each waits for the restart). */
const RELOAD_ATTEMPTS = 20
const IGNORED = /(^|[\\/])(node_modules|\.git|dist)([\\/]|$)/

const say = (line: string): void => void process.stderr.write(`${line}\n`)

/**
 * How to run a TypeScript module: through tsx when the project has it (`--import tsx` is resolved from the
 * working directory, so the server runs where tsx is found: here, else in the module's folder), else Node's
 * own type stripping (on by default from 22.18 and 23.6, behind a flag from 22.6), else one line saying
 * what to install. JavaScript needs nothing.
 */
function howToRun(modulePath: string, file: string): { args: string[]; cwd: string } {
  const here = process.cwd()
  if (!isTypeScript(file)) return { args: [], cwd: here }
  const tsx = findTsx([here, dirname(file)])
  if (tsx) return { args: ['--import', 'tsx'], cwd: tsx.folder }
  const native = nativeTypeScript()
  if (native === 'on') return { args: [], cwd: here }
  if (native === 'behind-flag') return { args: ['--experimental-strip-types'], cwd: here }
  throw new Error(typeScriptAdvice(modulePath, native))
}

/**
 * Loads the module in a throwaway `toolwire serve --stdio` whose stdin is closed at once: a module that
 * loads serves, reads the end of its input and exits 0; one that fails exits with its error on stderr.
 */
function checkModule(command: { args: string[]; cwd: string }): Promise<string | undefined> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, command.args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: command.cwd,
    })
    let output = ''
    proc.stderr.on('data', (chunk: Buffer) => {
      output = `${output}${chunk.toString()}`.slice(-MAX_FAILURE_CHARS)
    })
    proc.once('error', (error) => done(error.message))
    proc.once('exit', (code, signal) =>
      done(code === 0 ? undefined : `exit ${signal ?? String(code)}\n${output.trim()}`),
    )
  })
}

export async function runDev(modulePath: string, flags: DevFlags): Promise<void> {
  const file = resolve(modulePath)
  const { host, port } = parseHostPort(flags.http ?? '127.0.0.1:0')
  const cli = process.argv[1] ?? ''
  const run = howToRun(modulePath, file)
  const command = { args: [...run.args, cli, 'serve', file, '--stdio'], cwd: run.cwd }
  const session = sessionFor(flags)

  let upstream: StdioTransport | undefined
  let proxy: ProxyServer | undefined
  let served: RunningServer | undefined
  const openUpstream = (): ReturnType<typeof connect> => {
    upstream = new StdioTransport({ command: process.execPath, args: command.args, cwd: command.cwd })
    return connect(upstream, { clientInfo: { name: 'toolwire-dev', version: '0.1.0' } })
  }

  /** The first good load: the proxy and its address, and the page connected to it. */
  async function begin(): Promise<void> {
    proxy = await defineProxy({
      target: openUpstream,
      label: modulePath,
      restart: { initialDelayMs: 50, maxDelayMs: 1_000 },
    })
    served = await serveNode(proxy, { host, port })
    say(`toolwire dev: ${forTerminal(modulePath)} is served on ${served.url}`)
    await session.open(parseTarget([served.url], [], [], []))
  }

  /** Replaces the upstream process; the proxy relists it and publishes the changes. */
  async function replace(current: ProxyServer): Promise<void> {
    await upstream?.close()
    for (let attempt = 1; ; attempt++) {
      try {
        // A real request (discover answers from its cache): it fails on the closed process, which makes
        // the upstream start the new one, and the proxy lists it again.
        await current.upstream.use((client) => client.listTools({ fresh: true }))
        return
      } catch (error) {
        if (attempt >= RELOAD_ATTEMPTS) throw error
        await new Promise((wake) => setTimeout(wake, current.upstream.restartDelayMs))
      }
    }
  }

  let busy: Promise<void> = Promise.resolve()
  const reload = (first: boolean): void => {
    busy = busy.then(async () => {
      if (!first) say(`toolwire dev: a change; reloading ${forTerminal(modulePath)}`)
      const failure = await checkModule(command)
      if (failure !== undefined) {
        say(`toolwire dev: ${forTerminal(modulePath)} failed to load; waiting for a change\n${failure}`)
        session.setProblem(`${modulePath} failed to load; fix it and save to reload.\n${failure}`)
        return
      }
      try {
        if (proxy) await replace(proxy)
        else await begin()
        session.setProblem(undefined)
        // The page refreshes its lists even when only a handler changed (no list_changed then).
        session.emit({ type: 'reloaded' })
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        say(`toolwire dev: ${forTerminal(message, { multiline: true })}`)
        session.setProblem(message)
      }
    })
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  const watcher = watch(dirname(file), { recursive: true }, (_event, name) => {
    if (name !== null && IGNORED.test(name)) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => reload(false), SETTLE_MS)
  })
  await startPage(session, flags, async () => {
    watcher.close()
    await busy.catch(() => undefined)
    await served?.close()
    await proxy?.close()
  })
  reload(true)
}
