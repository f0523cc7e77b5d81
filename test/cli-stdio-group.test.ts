/**
 * A stdio server started through a wrapper (npx, a shell without `exec`) ends with the CLI (and with the
 * client's `close()`): the CLI exits after its answer, and no process the server command started remains. The processes are found by a marker
 * variable passed with `--env` (every process of the tree inherits it), read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { connectStdio } from '../src/client/stdio-entry.js'
import { EVERYTHING_SERVER as EVERYTHING, CLI, ROOT } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const MARK = 'TOOLWIRE_TEST_PROCESS_MARK'

/** Pids of the processes whose environment carries `MARK=mark`. */
function marked(mark: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0')
      if (environ.includes(`${MARK}=${mark}`)) pids.push(Number(entry))
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return pids
}

interface Outcome {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

const marks: string[] = []
afterEach(() => {
  // Whatever a failing run left behind is not left to the machine.
  for (const mark of marks.splice(0)) {
    for (const pid of marked(mark)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
})

/** Starts the CLI with a marker for the server's processes; `exited` settles when the CLI exits. */
function start(args: readonly string[]): {
  cli: ChildProcess
  mark: string
  stderr: () => string
  exited: Promise<Outcome>
} {
  const mark = randomUUID()
  marks.push(mark)
  const [command, ...rest] = args
  const cli = spawn(process.execPath, [CLI, command as string, '--env', `${MARK}=${mark}`, ...rest], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  cli.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<Outcome>((resolve) =>
    cli.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return { cli, mark, stderr: () => stderr, exited }
}

/** The CLI's outcome, or a failure naming what was printed if it has not exited within the deadline. */
async function exitWithin(run: ReturnType<typeof start>, ms = 45_000): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.cli.kill('SIGKILL')
      reject(new Error(`the CLI did not exit within ${ms} ms`))
    }, ms)
  })
  try {
    return await Promise.race([run.exited, late])
  } finally {
    clearTimeout(timer)
  }
}

describe.skipIf(process.platform !== 'linux')('a stdio server behind a wrapper ends with the CLI', () => {
  it('npx (the installed package, offline): list prints, exits, and leaves no process', async () => {
    const run = start(['list', '--', 'npx', '--no-install', 'mcp-server-everything', 'stdio'])
    const outcome = await exitWithin(run)
    expect(outcome.stdout).toContain('get-sum')
    expect(outcome.code).toBe(0)
    // A SIGKILL is delivered, not instant: wait for the group to be gone, with a generous deadline.
    await until(() => marked(run.mark).length === 0, 30_000, 'every process of the group ended')
    expect(marked(run.mark)).toEqual([])
  }, 60_000)

  it('a shell without exec: list prints, exits, and leaves no process', async () => {
    const run = start(['list', '--', 'sh', '-c', `"${process.execPath}" "${EVERYTHING}" stdio`])
    const outcome = await exitWithin(run)
    expect(outcome.stdout).toContain('get-sum')
    expect(outcome.code).toBe(0)
    // A SIGKILL is delivered, not instant: wait for the group to be gone, with a generous deadline.
    await until(() => marked(run.mark).length === 0, 30_000, 'every process of the group ended')
    expect(marked(run.mark)).toEqual([])
  }, 60_000)

  it('SIGTERM to the CLI during a call ends the whole server tree', async () => {
    const run = start([
      'call',
      '--yes',
      'trigger-long-running-operation',
      'duration=600',
      'steps=600',
      '--',
      'sh',
      '-c',
      `"${process.execPath}" "${EVERYTHING}" stdio`,
    ])
    await until(() => run.stderr().includes('Calling trigger-long-running-operation'), 30_000, 'the call')
    await until(() => marked(run.mark).length >= 2, 30_000, 'the shell and the server')
    run.cli.kill('SIGTERM')
    const outcome = await exitWithin(run)
    expect(outcome.code).toBe(143)
    // A SIGKILL is delivered, not instant: wait for the group to be gone, with a generous deadline.
    await until(() => marked(run.mark).length === 0, 30_000, 'every process of the group ended')
    expect(marked(run.mark)).toEqual([])
  }, 60_000)

  it("the client's close() ends the shell and the server it started, roots declared", async () => {
    const mark = randomUUID()
    marks.push(mark)
    const client = connectStdio(
      {
        command: 'sh',
        args: ['-c', `"${process.execPath}" "${EVERYTHING}" stdio`],
        env: { [MARK]: mark },
        stderr: 'ignore',
        exitGraceMs: 500,
      },
      { handlers: { roots: [{ uri: 'file:///tmp' }] } },
    )
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toContain('get-sum')
    expect(marked(mark).length).toBeGreaterThanOrEqual(2)
    await client.close()
    // A SIGKILL is delivered, not instant: wait for the group to be gone, with a generous deadline.
    await until(() => marked(mark).length === 0, 30_000, 'every process of the group ended')
    expect(marked(mark)).toEqual([])
  }, 60_000)

  it('an application without signal handlers, ended by SIGINT, takes the server tree with it', async () => {
    const mark = randomUUID()
    marks.push(mark)
    const entry = pathToFileURL(join(ROOT, 'dist', 'client', 'stdio-entry.js')).href
    const target = {
      command: 'sh',
      args: ['-c', `"${process.execPath}" "${EVERYTHING}" stdio`],
      env: { [MARK]: mark },
      stderr: 'ignore',
    }
    const script = [
      `import { connectStdio } from ${JSON.stringify(entry)}`,
      `const client = connectStdio(${JSON.stringify(target)})`,
      `await client.listTools()`,
      `console.log('ready')`,
      `setInterval(() => {}, 1000)`,
    ].join('\n')
    const app = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    app.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      app.once('exit', (_code, signal) => resolve(signal)),
    )
    await until(() => out.includes('ready'), 30_000, 'the application connected')
    expect(marked(mark).length).toBeGreaterThanOrEqual(2)
    app.kill('SIGINT')
    expect(await exited).toBe('SIGINT')
    // A SIGKILL is delivered, not instant: wait for the group to be gone, with a generous deadline.
    await until(() => marked(mark).length === 0, 30_000, 'every process of the group ended')
    expect(marked(mark)).toEqual([])
  }, 60_000)
})
