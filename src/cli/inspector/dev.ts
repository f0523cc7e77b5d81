/**
 * `toolwire dev <module>`: serves the module with `toolwire serve` in a child process, restarts that process
 * when a file under the module's folder changes, and keeps the inspector page connected to it. A fresh
 * process per reload gives a fresh module graph (an in-process re-import would keep the module's own imports
 * cached). After a reload the page is told that every list changed, so it refreshes; a module that fails to
 * load shows its error in the terminal and on the page, and the next good save recovers.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { watch, type FSWatcher } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { parseTarget } from '../client/target.js'
import { parseHostPort } from '../commands/serve.js'
import { forTerminal } from '../terminal-text.js'
import { sessionFor, startPage, type InspectFlags } from './run.js'
import type { InspectorSession } from './session.js'

export interface DevFlags extends InspectFlags {
  http?: string
}

/** Quiet time after a change before restarting: an editor's save is often several writes. */
const SETTLE_MS = 150
/** Characters of a failed start's output kept to show on the page. */
const MAX_FAILURE_CHARS = 8_000
const IGNORED = /(^|[\\/])(node_modules|\.git|dist)([\\/]|$)/

const say = (line: string): void => void process.stderr.write(`${line}\n`)

async function freePort(host: string): Promise<number> {
  const probe = createServer()
  await new Promise<void>((done, fail) => probe.once('error', fail).listen(0, host, () => done()))
  const address = probe.address()
  await new Promise<void>((done) => probe.close(() => done()))
  if (typeof address !== 'object' || address === null) throw new Error('no free port')
  return address.port
}

/**
 * How to run a TypeScript module: through tsx when the project has it (`--import tsx` is resolved from the
 * working directory, so the server runs where tsx is found: here, else in the module's folder), else Node's
 * own type stripping (22.6+). JavaScript needs nothing.
 */
function howToRun(file: string): { args: string[]; cwd: string } {
  const here = process.cwd()
  if (!/\.[cm]?tsx?$/.test(file)) return { args: [], cwd: here }
  for (const cwd of [here, dirname(file)]) {
    try {
      createRequire(join(cwd, 'noop.js')).resolve('tsx/package.json')
      return { args: ['--import', 'tsx'], cwd }
    } catch {
      // not installed there
    }
  }
  return { args: ['--experimental-strip-types'], cwd: here }
}

export async function runDev(modulePath: string, flags: DevFlags): Promise<void> {
  const file = resolve(modulePath)
  const { host, port: wanted } = parseHostPort(flags.http ?? '127.0.0.1:0')
  const port = wanted === 0 ? await freePort(host) : wanted
  const cli = process.argv[1] ?? ''
  const session: InspectorSession = sessionFor(flags)
  let child: ChildProcess | undefined
  let generation = 0

  const start = (): void => {
    const mine = ++generation
    let output = ''
    let served = false
    const run = howToRun(file)
    const proc = spawn(process.execPath, [...run.args, cli, 'serve', file, '--http', `${host}:${port}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: run.cwd,
    })
    child = proc
    const keep = (chunk: Buffer): void => {
      output = `${output}${chunk.toString()}`.slice(-MAX_FAILURE_CHARS)
    }
    proc.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk)
      keep(chunk)
    })
    proc.stdout.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk) // stdout stays the inspector URL only
      keep(chunk)
      const match = /Serving .* on (\S+)/.exec(output)
      if (!served && match?.[1] && mine === generation) {
        served = true
        const url = match[1]
        session.setProblem(undefined)
        void session
          .open(parseTarget([url], [], [], []))
          .then(() => {
            say(`toolwire dev: ${forTerminal(modulePath)} is served on ${url}`)
            // The reloaded module may have other tools, resources and prompts: every list is refreshed.
            for (const list of ['tools', 'resources', 'prompts']) session.emit({ type: 'changed', list })
            session.emit({ type: 'reloaded', generation: mine })
          })
          .catch((error: unknown) =>
            session.setProblem(error instanceof Error ? error.message : String(error)),
          )
      }
    })
    proc.once('exit', (code, signal) => {
      if (mine !== generation || signal === 'SIGTERM') return
      const problem = `${modulePath} stopped (${signal ?? `exit ${String(code)}`}); fix it and save to reload.\n${output}`
      say(`toolwire dev: ${forTerminal(modulePath)} failed to load or stopped; waiting for a change`)
      void session.close().then(() => session.setProblem(problem))
    })
  }

  const stopChild = async (): Promise<void> => {
    const proc = child
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
    const exited = new Promise<void>((done) => proc.once('exit', () => done()))
    proc.kill('SIGTERM')
    const killer = setTimeout(() => proc.kill('SIGKILL'), 5_000)
    await exited
    clearTimeout(killer)
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  const restart = (): void => {
    timer = undefined
    say(`toolwire dev: a change; reloading ${forTerminal(modulePath)}`)
    generation++ // the old process's exit is not a failure
    void session.close().then(stopChild).then(start)
  }
  const watcher: FSWatcher = watch(dirname(file), { recursive: true }, (_event, name) => {
    if (name !== null && IGNORED.test(name)) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(restart, SETTLE_MS)
  })
  await startPage(session, flags, async () => {
    watcher.close()
    generation++
    await stopChild()
  })
  start()
}
