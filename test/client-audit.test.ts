/** The client's audit hook (one record per tool call, whatever the outcome) and the CLI's `--audit-log`. */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type ToolCallRecord } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, ToolError } from '../src/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { CLI, ROOT } from './helpers/paths.js'

const server = defineServer({
  name: 'audited',
  version: '1',
  tools: [
    defineTool({ name: 'ok', handler: () => 'fine' }),
    defineTool({
      name: 'refuses',
      handler: () => {
        throw new ToolError('no')
      },
    }),
    defineTool({
      name: 'slow',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve('late'), 30_000)
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            resolve('aborted')
          })
        }),
    }),
  ],
})

describe('onToolCall', () => {
  it('receives every call with its arguments, outcome and timing', async () => {
    const records: ToolCallRecord[] = []
    const client = connect(
      { url: 'http://127.0.0.1/mcp?token=secret', fetch: createFetchHandler(server) },
      { onToolCall: (record) => records.push(record) },
    )
    await client.callTool('ok', {})
    await client.callTool('refuses', {})
    await client.callTool('missing', { a: 1 }, { allowUnlisted: true }).catch(() => undefined)
    await client.callTool('unlisted', {}).catch(() => undefined)
    await client.callTool('slow', {}, { timeoutMs: 100 }).catch(() => undefined)
    expect(records.map((record) => [record.tool, record.outcome])).toEqual([
      ['ok', 'success'],
      ['refuses', 'tool-error'],
      ['missing', 'protocol-error'],
      ['unlisted', 'refused'],
      ['slow', 'timeout'],
    ])
    expect(records[2]).toMatchObject({
      arguments: { a: 1 },
      code: -32602,
      error: expect.stringMatching(/missing/),
    })
    expect(records[3]).toMatchObject({ error: expect.stringMatching(/unlisted: not called/) })
    for (const record of records) {
      expect(record.server).toBe('http://127.0.0.1/mcp')
      expect(Number.isNaN(Date.parse(record.startedAt))).toBe(false)
      expect(record.durationMs).toBeGreaterThanOrEqual(0)
    }
    expect(records[4]!.durationMs).toBeGreaterThanOrEqual(90)
  })

  it('keeps the call working when the hook throws', async () => {
    const warnings: string[] = []
    const client = connect(
      { url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(server) },
      {
        warn: (message) => warnings.push(message),
        onToolCall: () => {
          throw new Error('disk full')
        },
      },
    )
    expect((await client.callTool('ok')).content).toEqual([{ type: 'text', text: 'fine' }])
    expect(warnings).toEqual(['the onToolCall hook failed: disk full'])
  })
})

describe('toolwire call --audit-log', () => {
  let running: RunningServer
  let dir: string
  beforeAll(async () => {
    running = await serveNode(server, { host: '127.0.0.1', port: 0 })
    dir = mkdtempSync(join(tmpdir(), 'toolwire-audit-'))
  })
  afterAll(async () => {
    await running.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const run = (...args: string[]): Promise<number | null> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'ignore'],
      })
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.once('close', (status) => {
        clearTimeout(timer)
        resolve(status)
      })
    })

  it('appends one JSON line per call to the file, readable by its owner only', async () => {
    const file = join(dir, 'logs', 'calls.jsonl')
    expect(await run('call', running.url, 'ok', '--yes', '--audit-log', file)).toBe(0)
    expect(await run('call', running.url, 'refuses', '--yes', '--audit-log', file)).toBe(1)
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    const records = lines.map((line) => JSON.parse(line) as ToolCallRecord)
    expect(records.map((record) => [record.tool, record.outcome])).toEqual([
      ['ok', 'success'],
      ['refuses', 'tool-error'],
    ])
    expect(records[0]).toMatchObject({ arguments: {}, server: running.url })
    expect(statSync(file).mode & 0o077).toBe(0)
  })
})
