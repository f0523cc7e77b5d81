/** The CLI and tasks: `call` shows task status, `task get|cancel` look at and stop a task (real processes). */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, TaskHandle } from '../src/client/index.js'
import { CLI, ROOT } from './helpers/paths.js'

const run = promisify(execFile)
const cli = (...args: string[]) =>
  run(process.execPath, [CLI, ...args], { timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  )

describe('CLI: tasks', () => {
  let fixture: ChildProcess
  let url = ''

  beforeAll(async () => {
    fixture = spawn(
      process.execPath,
      ['--import=tsx', join(ROOT, 'test', 'fixtures', 'conformance', 'main.ts')],
      {
        env: { ...process.env, PORT: '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fixture did not start within 15 s')), 15_000)
      fixture.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        const match = /(http:\/\/\S+\/mcp)/.exec(chunk)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
    })
  })
  afterAll(() => {
    if (fixture.pid !== undefined && fixture.exitCode === null) process.kill(fixture.pid, 'SIGTERM')
  })

  it('call waits for the task and prints each status change', async () => {
    const { code, stdout, stderr } = await cli('call', url, 'slow_compute', 'seconds=0', 'label=cli', '--yes')
    expect(code).toBe(0)
    expect(stdout).toContain('Computed cli after 0 s')
    expect(stderr).toMatch(/task \S+: working/)
    expect(stderr).toMatch(/task \S+: completed/)
  })

  it('task get shows a task, task cancel stops it, an unknown id fails clearly', async () => {
    const client = connect({ url })
    const handle = await client.callTool('slow_compute', { seconds: 120 }, { task: true })
    await client.close()
    expect(handle).toBeInstanceOf(TaskHandle)
    const id = (handle as TaskHandle).id
    const got = await cli('task', 'get', url, id)
    expect(got.stdout).toContain(`task ${id}: working`)
    expect((await cli('task', 'cancel', url, id)).code).toBe(0)
    const after = await cli('task', 'get', url, id, '--json')
    expect(JSON.parse(after.stdout)).toMatchObject({ taskId: id, status: 'cancelled' })
    const unknown = await cli('task', 'get', url, 'no-such-task')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Unknown task: no-such-task (error -32602)')
  })
})
