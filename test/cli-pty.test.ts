/**
 * The CLI end to end in a real pseudo-terminal: confirmation, an elicitation form, a declined form,
 * `--json` output, exit statuses; and without a terminal, elicitation is declined instead of hanging.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { createScriptedServer } from './fixtures/scripted-server.js'
import { createToolwireTestServer } from './fixtures/toolwire-server.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { KEY, noTerminal, runInTerminal } from './helpers/pty.js'
import { ROOT } from './helpers/paths.js'

const root = ROOT
const CLI = ['node', 'dist/cli/main.js']

let scripted: RunningServer
let tools: RunningServer
const events = { aborted: [] as string[], started: [] as string[] }
beforeAll(async () => {
  scripted = await serveNode(createScriptedServer(), { port: 0 })
  tools = await serveNode(createToolwireTestServer(events), { port: 0 })
})
afterAll(async () => {
  await scripted.close()
  await tools.close()
})

// Without util-linux `script` there is no pseudo-terminal: the title says why these are skipped.
describe.skipIf(noTerminal !== undefined)(
  `toolwire call in a terminal${noTerminal ? ` (skipped: ${noTerminal})` : ''}`,
  () => {
    it('shows the arguments and asks before calling; "no" means not called (exit 2)', async () => {
      const term = runInTerminal([...CLI, 'call', tools.url, 'where', 'region=eu', 'verbose=true'], root)
      await term.waitFor('Call where?')
      expect(term.screen()).toContain('"region": "eu"')
      expect(term.screen()).toContain('"verbose": true')
      expect(term.screen()).toContain('annotations from an untrusted server cannot be relied on')
      term.type('n')
      await term.waitFor('Not called.')
      expect(await term.exited).toBe(2)
    })

    it('calls after "yes" and prints structured content as JSON (exit 0)', async () => {
      const term = runInTerminal([...CLI, 'call', tools.url, 'where', 'region=eu'], root)
      await term.waitFor('Call where?')
      term.type('y')
      expect(await term.exited).toBe(0)
      expect(term.screen()).toMatch(/"region": "eu",\s+"note": ""/)
    })

    it('fills an elicitation form field by field and sends it', async () => {
      const term = runInTerminal([...CLI, 'call', scripted.url, 'profile', '--yes'], root)
      await term.waitFor('asks (for profile): Tell us about you')
      await term.waitFor('Name [string]')
      term.type(`Ada${KEY.enter}`)
      await term.waitFor('age (optional) [integer]')
      term.type(KEY.enter) // keep the default, 30
      await term.waitFor('color')
      term.type(KEY.down + KEY.enter) // green
      await term.waitFor('subscribe (optional)')
      term.type('y')
      await term.waitFor('email (optional) [string]')
      term.type(`ada${KEY.enter}`)
      await term.waitFor('must match format "email"')
      term.type(`@example.com${KEY.enter}`)
      await term.waitFor('Send this answer?')
      expect(term.screen()).toContain('"color": "green"')
      term.type(KEY.enter)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toContain(
        'accept: {"name":"Ada","age":30,"color":"green","subscribe":true,"email":"ada@example.com"}',
      )
    })

    it('declines a form', async () => {
      const term = runInTerminal([...CLI, 'call', scripted.url, 'confirm', 'target=prod', '--yes'], root)
      await term.waitFor('Really act on prod?')
      await term.waitFor(/Yes \/ .*No/)
      term.type('y')
      await term.waitFor('Send this answer?')
      term.type(KEY.down + KEY.enter)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toContain('user chose decline')
    })

    it('shows a URL elicitation with its host and waits for the user', async () => {
      const term = runInTerminal([...CLI, 'call', scripted.url, 'visit', '--yes'], root)
      await term.waitFor('When you are done there, continue')
      expect(term.screen()).toContain('https://auth.example.com/login?x=1')
      expect(term.screen()).toContain('Host: auth.example.com')
      // A 2026-07-28 server asks in an input_required result: the request is sent again with the answer.
      expect(term.screen()).toContain('I have completed it — retry the request')
      term.type(KEY.enter)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toContain('visit: accept')
    })

    it('cancels the call on Ctrl-C: the server sees it, the exit status is 2', async () => {
      const term = runInTerminal([...CLI, 'call', tools.url, 'slow', '--yes'], root)
      await term.waitFor('Calling slow')
      await expect.poll(() => events.started).toContain('slow')
      term.type('\x03')
      expect(await term.exited).toBe(2)
      expect(term.screen()).toContain('toolwire: Request cancelled: interrupted')
      await expect.poll(() => events.aborted).toContain('slow')
    })

    it('shows progress as a bar while the tool runs', async () => {
      const term = runInTerminal([...CLI, 'call', tools.url, 'count', 'n=4', 'delayMs=150', '--yes'], root)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toMatch(/━+.*at [1-4]/)
      expect(term.screen()).toContain('counted to 4')
    })

    it('prints the raw result with --json and exits 1 on a tool error', async () => {
      const term = runInTerminal([...CLI, 'call', tools.url, 'fail', '--yes', '--json'], root)
      expect(await term.exited).toBe(1)
      expect(term.screen()).toContain('"isError": true')
      expect(term.screen()).toContain('the tool failed on purpose')
    })
  },
)

describe('toolwire without a terminal', () => {
  // Asynchronous on purpose: the servers live in this process and must keep answering.
  const run = (...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(CLI[0]!, [...CLI.slice(1), ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.once('close', (status) => {
        clearTimeout(timer)
        resolve({ status, stdout, stderr })
      })
    })

  it('declines elicitation instead of hanging, and says so', async () => {
    const result = await run('call', scripted.url, 'profile', '--yes')
    expect(result.status).toBe(0)
    expect(result.stderr).toContain('No terminal to ask in, so the request was declined.')
    expect(result.stdout.trim()).toBe('decline: null')
  })

  it('does not call without --yes when it cannot ask', async () => {
    const result = await run('call', tools.url, 'where', 'region=eu')
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('Pass --yes to call it anyway')
  })

  it('calls a tool the server marks read-only without asking only with --trust-annotations', async () => {
    const trusted = await run('call', tools.url, 'where', 'region=eu', '--trust-annotations')
    expect(trusted.status).toBe(0)
    const notReadOnly = await run('call', tools.url, 'fail', '--trust-annotations')
    expect(notReadOnly.status).toBe(2)
    expect(notReadOnly.stderr).toContain('does not mark this tool read-only')
  })

  it('--json prints parseable JSON on stdout only', async () => {
    const result = await run('call', tools.url, 'where', 'region=eu', '--yes', '--json')
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ structuredContent: { region: 'eu', note: '' } })
    const listed = await run('list', tools.url, '--json')
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)).toContain('slow')
  })

  it('exits 2 on protocol and transport errors, with the message', async () => {
    const unknown = await run('call', tools.url, 'nope', '--yes')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('has no tool "nope"')
    const badValue = await run('call', tools.url, 'count', 'n=many', '--yes')
    expect(badValue.status).toBe(2)
    expect(badValue.stderr).toContain('n=many: expected a number')
    const protocol = await run('call', scripted.url, 'task_result', '--yes')
    expect(protocol.status).toBe(2)
    // "task" needs a real task (the tasks extension is declared by default).
    expect(protocol.stderr).toContain('not a task')
    const unreachable = await run('list', 'http://127.0.0.1:9/mcp')
    expect(unreachable.status).toBe(2)
    expect(unreachable.stderr).toContain('Cannot reach http://127.0.0.1:9/mcp')
  })

  it('discovers and lists, over HTTP and stdio', async () => {
    const discovered = await run('discover', tools.url)
    expect(discovered.status).toBe(0)
    expect(discovered.stdout).toContain('Server:       client-test-server 1.0.0')
    expect(discovered.stdout).toContain('Versions:     2026-07-28')
    const listed = await run('list', '--', 'node', 'dist/cli/main.js', 'demo', '--stdio')
    expect(listed.status).toBe(0)
    expect(listed.stdout).toContain('arithmetic — Arithmetic [read-only, per the server]')
    expect(listed.stdout).toContain(
      'args: op: "add"|"subtract"|"multiply"|"divide"|"power"|"modulo", a: number, b: number',
    )
  })

  it('saves images and audio to files and prints their paths', async () => {
    const media = await serveNode(createFixtureServer(), { port: 0 })
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-test-'))
    try {
      const image = await run('call', media.url, 'test_image_content', '--yes', '--out-dir', dir)
      expect(image.status).toBe(0)
      const path = /saved to (\S+)\]/.exec(image.stdout)?.[1]
      expect(path).toBe(join(dir, 'test_image_content-1.png'))
      expect(readFileSync(path!).subarray(1, 4).toString()).toBe('PNG')
      const audio = await run('call', media.url, 'test_audio_content', '--yes', '--out-dir', dir)
      expect(audio.stdout).toContain(`[audio audio/wav saved to ${join(dir, 'test_audio_content-1.wav')}]`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
      await media.close()
    }
  })

  it('talks to a stdio server given after --', async () => {
    const result = await run(
      'call',
      'count',
      'n=2',
      '--yes',
      '--',
      'node',
      'dist/cli/main.js',
      'demo',
      '--stdio',
    )
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('has no tool "count"')
    const ok = await run(
      'call',
      'arithmetic',
      'op=multiply',
      'a=6',
      'b=7',
      '--yes',
      '--',
      'node',
      'dist/cli/main.js',
      'demo',
      '--stdio',
    )
    expect(ok.status).toBe(0)
    expect(JSON.parse(ok.stdout)).toEqual({ result: 42 })
  })
})
