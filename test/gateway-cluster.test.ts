/**
 * Two `toolwire gateway` processes behind nginx (round robin), sharing one Redis and one requestState secret.
 * Members: a toolwire server over HTTP that both instances mirror, an SDK v1 server and a toolwire server
 * over stdio (one process per instance). Calls through nginx reach both instances; a list change of the
 * shared upstream reaches listeners on both; and a list change one instance's own stdio upstream makes
 * reaches a listener on the other through Redis.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect } from '../src/client/index.js'
import { defineTool } from '../src/features/tools/define.js'
import { defineServer, type Server } from '../src/server.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { nginxAvailable, type NginxProcess, requireNginx, startNginx } from './helpers/nginx.js'
import { CLI, ROOT, testServer } from './helpers/paths.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'
import { textOf, until } from './helpers/wait.js'

const run = (redisAvailable || requireRedis) && (nginxAvailable || requireNginx)
if (!run)
  console.warn('redis-server or nginx not found: the gateway cluster test is skipped (CI installs both)')

const SECRET = randomBytes(32).toString('hex')

interface Instance {
  readonly url: string
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

function startGateway(file: string, redisUrl: string): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [CLI, 'gateway', file, '--http', '127.0.0.1:0', '--redis', redisUrl, '--secret-env', 'GATEWAY_SECRET'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GATEWAY_SECRET: SECRET } },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (url) => {
      clearTimeout(timer)
      resolve({ url, child, exited })
    })
  })
}

describe.runIf(run)('two gateway instances behind nginx with Redis', () => {
  let redis: RedisProcess
  let nginx: NginxProcess
  let shared: Server
  let sharedHttp: RunningServer
  const instances: Instance[] = []
  const clients: Client[] = []
  const client = (url: string): Client => {
    const made = connect({ url }, { warn: () => {} })
    clients.push(made)
    return made
  }

  beforeAll(async () => {
    redis = await startRedis()
    shared = defineServer({
      name: 'shared',
      version: '1.0.0',
      tools: [defineTool({ name: 'hello', handler: () => 'hello from the shared upstream' })],
    })
    sharedHttp = await serveNode(shared, { port: 0 })
    const file = join(mkdtempSync(join(tmpdir(), 'toolwire-gateway-cluster-')), 'mcp.json')
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          up: { url: sharedHttp.url },
          tw: { command: process.execPath, args: [testServer('proxy-upstream.mjs')] },
          v1: { command: process.execPath, args: [join(ROOT, 'test', 'fixtures', 'sdk-v1-server.mjs')] },
        },
      }),
    )
    instances.push(...(await Promise.all([1, 2].map(() => startGateway(file, redis.url)))))
    nginx = await startNginx(instances.map((instance) => new URL(instance.url).host))
  }, 60_000)

  afterAll(async () => {
    for (const made of clients) await made.close().catch(() => undefined)
    await nginx?.stop()
    for (const instance of instances) {
      if (instance.child.exitCode === null) instance.child.kill('SIGTERM')
      await instance.exited
    }
    await sharedHttp?.close()
    await redis?.stop()
  })

  it('answers calls through nginx from both instances', async () => {
    const balanced = client(nginx.url)
    expect(textOf(await balanced.callTool('up_hello', {}))).toBe('hello from the shared upstream')
    // Each instance runs its own stdio upstream: round robin shows two process ids.
    const pids = new Set<string>()
    for (let i = 0; i < 4; i++) pids.add(textOf(await balanced.callTool('tw_pid', {})))
    expect(pids.size).toBe(2)
  })

  it('brings a list change of the shared upstream to listeners on both instances', async () => {
    const seen = instances.map(() => [] as string[])
    const subscriptions = await Promise.all(
      instances.map((instance, index) =>
        client(instance.url).subscribe(
          { toolsListChanged: true },
          { onToolsChanged: (tools) => (seen[index] = tools.map((tool) => tool.name)) },
        ),
      ),
    )
    shared.tools.add(defineTool({ name: 'added', handler: () => 'added later' }))
    await until(() => seen.every((names) => names.includes('up_added')), 'both listeners to see up_added')
    expect(textOf(await client(nginx.url).callTool('up_added', {}))).toBe('added later')
    await Promise.all(subscriptions.map((subscription) => subscription.close()))
  })

  it('carries a list change of one instance’s own upstream to a listener on the other (Redis)', async () => {
    const [a, b] = instances as [Instance, Instance]
    let changes = 0
    const subscription = await client(b.url).subscribe(
      { toolsListChanged: true },
      {
        onNotification: (notification) => {
          if (notification.method === 'notifications/tools/list_changed') changes += 1
        },
      },
    )
    // The SDK v1 server's `grow` adds a tool in the process of instance A only.
    expect(textOf(await client(a.url).callTool('v1_grow', {}))).toMatch(/now \d+ extra/)
    await until(() => changes > 0, 'the change made on A to reach the listener on B')
    await subscription.close()
  })
})
