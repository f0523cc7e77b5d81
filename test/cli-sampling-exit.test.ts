/**
 * `toolwire call` ends when the call ends, even while the server's sampling requests wait for the
 * `--sampling-command`: a 2025-era toolwire server (a real one, on a loopback socket) whose tool sends several
 * `sampling/createMessage` requests and returns at once; the command is a process that would run for a
 * few minutes. The CLI must exit well before one such run could finish, and no sampling process may outlive it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineServer, defineTool } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { CLI, ROOT } from './helpers/paths.js'

/** Sampling requests the tool sends before it returns. */
const REQUESTS = 3
/** Each sampling command would run this long; the CLI must be gone long before. */
const COMMAND_MS = 300_000
/**
 * A generous deadline, not an expected time (about 2 s on an idle machine; a CI run with other test files
 * starting browsers and builds on the same two cores once took past 15 s). It is still far below one
 * command's run, so a CLI that waits for the commands cannot pass.
 */
const EXIT_DEADLINE_MS = 60_000
/** How long the CLI may take to connect, call and print its result (the first command running by then). */
const START_DEADLINE_MS = 60_000

let running: RunningServer
let work: string
let asked = 0

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-sampling-exit-'))
  const tool = defineTool({
    name: 'fire',
    handler: async (_args, ctx) => {
      for (let i = 0; i < REQUESTS; i++) {
        asked++
        // Not awaited: the tool answers at once and leaves its questions behind.
        ctx.input
          .sample({ messages: [{ role: 'user', content: { type: 'text', text: `q${i}` } }], maxTokens: 5 })
          .catch(() => undefined)
      }
      // The answer waits only until the first sampling command runs (its node process wrote its PID), so
      // the call ends with that command running and the others queued behind it.
      const deadline = Date.now() + START_DEADLINE_MS
      while (pidsOf('node').length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      return 'fired'
    },
  })
  running = await serveNode(defineServer({ name: 'sampler', version: '1.0.0', tools: [tool] }), { port: 0 })
})

afterAll(async () => {
  // Only after a failure is anything left: it must not idle on for minutes after the test.
  for (const pid of [...pidsOf('shell'), ...pidsOf('node')].filter(alive)) process.kill(pid, 'SIGKILL')
  await running.close()
  rmSync(work, { recursive: true, force: true })
})

/** A sampling command that records its shell's PID and the PID of the node process under it, then idles. */
function slowCommand(): string {
  const script = `require('fs').writeFileSync(require('path').join(${JSON.stringify(work)}, 'node-' + process.pid), ''); setTimeout(() => {}, ${COMMAND_MS})`
  // `echo $$` is the shell; the node process is a child of it (no exec), as a wrapper script would be.
  return `echo > ${JSON.stringify(work)}/shell-$$; ${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}; true`
}

const pidsOf = (prefix: string): number[] =>
  readdirSync(work)
    .filter((name) => name.startsWith(`${prefix}-`))
    .map((name) => Number(name.slice(prefix.length + 1)))

/**
 * A process that has not ended. A zombie has ended: an orphaned grandchild waits in that state until the
 * machine's init reaps it, which some container inits do only now and then.
 */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return existsSync(`/proc/${pid}`) || process.platform !== 'linux'
  }
}

/**
 * What keeps a CLI that should have exited alive: the active handles of its diagnostic report (written on
 * SIGUSR2, see the spawn) and which of the sampling processes still run. Read only when the test fails.
 */
async function whatHolds(child: ChildProcess): Promise<string> {
  type Report = { libuv?: { type: string; is_active?: boolean; is_referenced?: boolean }[] }
  const readReport = (): Report | undefined => {
    const name = readdirSync(work).find((file) => file.startsWith('report.'))
    try {
      return name === undefined ? undefined : (JSON.parse(readFileSync(join(work, name), 'utf8')) as Report)
    } catch {
      return undefined // still being written
    }
  }
  child.kill('SIGUSR2')
  const deadline = Date.now() + 10_000
  let report = readReport()
  while (report === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    report = readReport()
  }
  const processes = `sampling processes alive: ${JSON.stringify([...pidsOf('shell'), ...pidsOf('node')].filter(alive))}`
  if (report === undefined) return `${processes}; no diagnostic report`
  const handles = (report.libuv ?? [])
    .filter((handle) => handle.is_active && handle.is_referenced)
    .map(
      ({ type, is_active: _active, is_referenced: _referenced, ...rest }) =>
        `${type} ${JSON.stringify(rest)}`,
    )
  return `${processes}; active handles: ${handles.join(', ')}`
}

describe('toolwire call with a slow --sampling-command', () => {
  it('exits when the call ends and leaves no sampling process behind', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        // On a hang, SIGUSR2 makes the CLI write a diagnostic report naming what keeps it alive.
        '--report-on-signal',
        '--report-signal=SIGUSR2',
        `--report-directory=${work}`,
        CLI,
        'call',
        running.url,
        'fire',
        '--yes',
        '--protocol-version',
        '2025-11-25',
        '--sampling-command',
        slowCommand(),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    let printed: () => void = () => undefined
    const result = new Promise<void>((resolve) => (printed = resolve))
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      if (stdout.includes('fired')) printed()
    })
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    /** Resolves 'late' after `ms`, unless `event` comes first. */
    const within = async <T>(event: Promise<T>, ms: number): Promise<T | 'late'> => {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)))
      const first = await Promise.race([event, late])
      clearTimeout(timer)
      return first
    }
    // Starting the CLI and the first command may take long on a loaded machine; the clock that matters
    // starts when the result is printed.
    const shown = await within(Promise.race([result, exited.then(() => undefined)]), START_DEADLINE_MS)
    expect(shown, `no result printed; stderr: ${stderr}`).not.toBe('late')
    expect(stdout).toContain('fired')
    const outcome = await within(exited, EXIT_DEADLINE_MS)
    const held = outcome === 'late' ? await whatHolds(child) : ''
    if (outcome === 'late') child.kill('SIGKILL')
    expect(
      outcome,
      `the CLI was still running ${EXIT_DEADLINE_MS} ms after its result; ${held}; stderr: ${stderr}`,
    ).toBe(0)
    expect(asked).toBe(REQUESTS)
    // The first sampling command was running when the call ended (the test is not vacuous); every
    // process it started, the shell and the node process under it, is gone.
    const started = [...pidsOf('shell'), ...pidsOf('node')]
    expect(pidsOf('node')).toHaveLength(1)
    expect(started.filter(alive)).toEqual([])
  }, 180_000)
})
