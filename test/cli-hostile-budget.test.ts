/**
 * The CLI against hostile servers (test/fixtures/hostile-budget-server.ts over HTTP, and a stdio process):
 * `toolwire call` and `toolwire list` end within the call's budget with a clear message, and the
 * `--sampling-command` runs a bounded number of times, never twice at once. Counts are asserted, never times.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_BUDGET } from '../src/client/index.js'
import { FLOOD, HostileServer } from './fixtures/hostile-budget-server.js'
import { CLI, ROOT, testServer } from './helpers/paths.js'

let hostile: HostileServer
let work: string

beforeAll(async () => {
  hostile = await HostileServer.start()
  work = mkdtempSync(join(tmpdir(), 'toolwire-cli-budget-'))
})
afterAll(async () => {
  await hostile.close()
  rmSync(work, { recursive: true, force: true })
})

function run(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

let commands = 0
/**
 * A sampling command that logs when it starts and ends (so overlapping runs would show) and prints a
 * CreateMessageResult.
 */
function samplingCommand(): { command: string; log: string } {
  const log = join(work, `sampling-${++commands}.log`)
  const result = JSON.stringify({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' })
  return { log, command: `echo start >> '${log}'; cat > /dev/null; echo end >> '${log}'; echo '${result}'` }
}

/** How many runs of the command started, and the most that ran at once. */
function runs(log: string): { started: number; mostAtOnce: number } {
  const events = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []
  let running = 0
  let mostAtOnce = 0
  for (const event of events) {
    running += event === 'start' ? 1 : -1
    mostAtOnce = Math.max(mostAtOnce, running)
  }
  return { started: events.filter((event) => event === 'start').length, mostAtOnce }
}

describe('the CLI facing a hostile server', () => {
  it(
    'call: a task polled with pollIntervalMs 0 ends at --timeout and is cancelled',
    { timeout: 60_000 },
    async () => {
      // 2026-07-28 (the tasks extension) and 2025-11-25 (a tool that requires a task) alike.
      for (const mode of ['polls', 'legacy-task-polls'] as const) {
        const { url, counts } = hostile.path(mode)
        // --timeout bounds the whole call: the task is polled for at most 3 s.
        const { status, stderr } = await run('call', url, 'job', '--yes', '--timeout', '3000')
        expect(status).toBe(2)
        expect(stderr).toMatch(/tools\/call job: no answer within 3000 ms/)
        expect(counts.methods['tasks/get']).toBeGreaterThan(0)
        expect(counts.methods['tasks/get']).toBeLessThanOrEqual(3_000 / DEFAULT_BUDGET.minPollIntervalMs + 1)
        expect(counts.methods['tasks/cancel']).toBe(1)
      }
    },
  )

  it('call: a task that asks forever runs the --sampling-command at most maxInputRounds − 1 times', async () => {
    const { url, counts } = hostile.path('task-inputs')
    const { command, log } = samplingCommand()
    const { status, stderr } = await run('call', url, 'job', '--yes', '--sampling-command', command)
    expect(status).toBe(2)
    expect(stderr).toMatch(/still asking for input after 10 rounds \(limit maxInputRounds = 10\)/)
    expect(runs(log)).toEqual({ started: DEFAULT_BUDGET.maxInputRounds - 1, mostAtOnce: 1 })
    expect(counts.methods['tasks/update']).toBe(DEFAULT_BUDGET.maxInputRounds - 1)
  })

  it('list: endless cursors end at maxPages, on both eras', async () => {
    for (const mode of ['cursors', 'legacy-cursors'] as const) {
      const { url, counts } = hostile.path(mode)
      const { status, stderr } = await run('list', url)
      expect(status).toBe(2)
      expect(stderr).toMatch(/the list goes on past 100 pages \(limit maxPages = 100\)/)
      const probe = mode === 'legacy-cursors' ? 1 : 0
      expect(counts.methods['tools/list']).toBe(DEFAULT_BUDGET.maxPages + probe)
    }
  })

  it('call: a burst of sampling requests starts a few processes, one at a time (HTTP)', async () => {
    const { url, counts } = hostile.path('legacy-flood')
    const { command, log } = samplingCommand()
    const { status, stdout } = await run('call', url, 'job', '--yes', '--sampling-command', command)
    expect(status).toBe(0)
    const { started, mostAtOnce } = runs(log)
    expect(mostAtOnce).toBe(1)
    expect(started).toBeGreaterThan(0)
    expect(started).toBeLessThanOrEqual(4)
    expect(stdout).toContain(`answered ${started}, refused ${FLOOD - started}`)
    expect(counts.errors).toBe(FLOOD - started)
  })

  it('call: the same over stdio', async () => {
    const { command, log } = samplingCommand()
    const serverLog = join(work, 'stdio-flood.log')
    const server = ['--', process.execPath, testServer('hostile-budget-stdio.mjs'), 'flood', serverLog]
    const { status, stdout } = await run('call', 'job', '--yes', '--sampling-command', command, ...server)
    expect(status).toBe(0)
    const { started, mostAtOnce } = runs(log)
    expect(mostAtOnce).toBe(1)
    expect(started).toBeGreaterThan(0)
    expect(started).toBeLessThanOrEqual(DEFAULT_BUDGET.maxServerRequests)
    expect(stdout).toContain(`answered ${started}, refused ${FLOOD - started}`)
  })
})
