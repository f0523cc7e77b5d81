/**
 * `toolwire bridge`, as users run it: server-everything (stdio) served as Streamable HTTP, the URL printed
 * on stdout once ready; that URL re-served over HTTP by a second bridge; and over stdio by a third, which
 * toolwire's own CLI then calls. Downstream: the official SDK v1 client (2025-era), the SDK v2 client and
 * toolwire's CLI. `toolwire gateway` serves an mcpServers file of two members, alone and merged.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVERYTHING_SERVER as EVERYTHING, CLI, ROOT, testServer } from './helpers/paths.js'
import { textOf } from './helpers/wait.js'

interface Bridge {
  readonly url: string
  readonly child: ChildProcess
}

/** Starts `toolwire bridge …` (or another command) and resolves with the URL it prints once it listens. */
function startBridge(args: readonly string[], command = 'bridge'): Promise<Bridge> {
  const child = spawn(process.execPath, [CLI, command, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bridge did not start: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`bridge exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      resolve({ url: line, child })
    })
  })
}

function stop(bridge: Bridge | undefined): Promise<void> {
  if (!bridge || bridge.child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    bridge.child.once('exit', () => resolve())
    bridge.child.kill('SIGTERM')
  })
}

function toolwire(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}

describe('toolwire bridge', () => {
  let first: Bridge | undefined
  let second: Bridge | undefined
  beforeAll(async () => {
    first = await startBridge(['--http', '127.0.0.1:0', '--', process.execPath, EVERYTHING])
    second = await startBridge([first.url, '--http', '127.0.0.1:0'])
  }, 60_000)
  afterAll(async () => {
    await stop(second)
    await stop(first)
  })

  it('prints the URL of a stdio server it serves as Streamable HTTP', () => {
    expect(first?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  })

  it('answers the SDK v1 client (2025-era) and the SDK v2 client', async () => {
    const v1 = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
    await v1.connect(new StreamableHTTPClientTransport(new URL(first!.url)))
    const v2 = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    await v2.connect(new HttpTransportV2(new URL(first!.url)))
    try {
      expect((await v1.listTools()).tools.map((tool) => tool.name)).toContain('get-sum')
      expect(textOf(await v1.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5')
      expect(textOf(await v2.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain('hi')
    } finally {
      await v1.close()
      await v2.close()
    }
  })

  it('re-serves an HTTP server over HTTP (a bridge in front of a bridge)', async () => {
    const { code, stdout } = await toolwire([
      'call',
      second!.url,
      'trigger-long-running-operation',
      'duration=1',
      'steps=2',
      '--yes',
      '--json',
    ])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('completed') }],
    })
  })

  it('serves a remote server over stdio', async () => {
    const { code, stdout, stderr } = await toolwire([
      'call',
      'get-sum',
      'a=4',
      'b=3',
      '--yes',
      '--',
      process.execPath,
      CLI,
      'bridge',
      first!.url,
      '--stdio',
    ])
    expect(stderr).not.toMatch(/error/i)
    expect(code).toBe(0)
    expect(stdout).toContain('7')
  })

  it('says clearly when the upstream cannot be reached', async () => {
    const { code, stderr } = await toolwire(['bridge', 'http://127.0.0.1:1/mcp', '--stdio'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/Upstream server unavailable: .*Cannot reach http:\/\/127\.0\.0\.1:1\/mcp/)
  })

  it('refuses extra operands and two transports', async () => {
    const extra = await toolwire(['bridge', first!.url, 'stray', '--stdio'])
    expect(extra.code).toBe(2)
    expect(extra.stderr).toMatch(/bridge takes one upstream server/)
    const both = await toolwire(['bridge', first!.url, '--stdio', '--http', '127.0.0.1:0'])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/choose one of --http and --stdio/)
  })
})

describe('toolwire gateway', () => {
  let gateway: Bridge | undefined
  afterAll(() => stop(gateway))

  it('serves each member of an mcpServers file alone and all of them namespaced at /mcp', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolwire-gateway-')), 'mcp.json')
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          ev: { command: process.execPath, args: [EVERYTHING], include: ['get-*', 'echo'] },
          tw: {
            command: process.execPath,
            args: [testServer('proxy-upstream.mjs')],
            exclude: ['crash', 'huge'],
          },
        },
      }),
    )
    gateway = await startBridge([file, '--http', '127.0.0.1:0'], 'gateway')
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const merged = await toolwire(['list', gateway.url, '--json'])
    const names = (JSON.parse(merged.stdout) as { name: string }[]).map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['ev_get-sum', 'ev_echo', 'tw_sum', 'tw_pid']))
    expect(names).not.toContain('tw_crash')
    expect(names).not.toContain('ev_trigger-long-running-operation')
    const base = gateway.url.replace(/\/mcp$/, '')
    const alone = await toolwire(['call', `${base}/servers/tw/mcp`, 'sum', 'a=1', 'b=2', '--yes', '--json'])
    expect(JSON.parse(alone.stdout)).toMatchObject({ structuredContent: { sum: 3 } })
    const sum = await toolwire(['call', gateway.url, 'ev_get-sum', 'a=2', 'b=2', '--yes'])
    expect(sum.stdout).toContain('4')
  })
})
