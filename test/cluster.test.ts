/**
 * Three `toolwire serve` processes behind nginx (round robin), sharing one Redis for handles, list changes
 * and rate limits, and one requestState secret: any instance can answer any request, and losing one loses
 * only the calls it was running. A 2025-era client (SDK v1) keeps one session across all three.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Answer, type Fetcher, meta, post, resultOf } from './helpers/http.js'
import { nginxAvailable, type NginxProcess, requireNginx, startNginx } from './helpers/nginx.js'
import { CLI, testServer } from './helpers/paths.js'
import { freePort, redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'
import { openListen } from './helpers/sse-stream.js'

const run = (redisAvailable || requireRedis) && (nginxAvailable || requireNginx)
if (!run) console.warn('redis-server or nginx not found: the cluster test is skipped (CI installs both)')

interface Member {
  readonly url: string
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

const SECRET = randomBytes(32).toString('hex')

async function startMember(redisUrl: string, port = 0): Promise<Member> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      testServer('cluster-member.mjs'),
      '--http',
      `127.0.0.1:${port}`,
      '--redis',
      redisUrl,
      '--secret-env',
      'CLUSTER_SECRET',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CLUSTER_SECRET: SECRET } },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`member did not start within 15 s: ${output}`)), 15_000)
    const read = (chunk: string): void => {
      output += chunk
      const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.setEncoding('utf8').on('data', read)
    child.stderr!.setEncoding('utf8').on('data', read)
    child.once('exit', (code) => reject(new Error(`member exited with ${code}: ${output}`)))
  })
  return { url, child, exited }
}

/** Real fetch against `url`, whatever URL the harness put in the request. */
const at =
  (url: string): Fetcher =>
  async (request) =>
    fetch(url, {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      signal: request.signal,
    })

const call = (url: string, name: string, args: Record<string, unknown> = {}, options = {}): Promise<Answer> =>
  post(at(url), 'tools/call', { name, arguments: args }, options, url)
const text = (answer: Answer): string =>
  (resultOf(answer).content as { text: string }[]).map((block) => block.text).join('')

describe.runIf(run)('a cluster of three instances behind nginx', () => {
  let redis: RedisProcess
  let nginx: NginxProcess
  const members: Member[] = []
  /** nginx's fourth upstream: nothing listens there until a test starts a member mid-session. */
  let spare = 0

  beforeAll(async () => {
    redis = await startRedis()
    members.push(...(await Promise.all([1, 2, 3].map(() => startMember(redis.url)))))
    spare = await freePort()
    // A refused connection is passed to the next upstream, so the empty slot costs nothing until it fills.
    nginx = await startNginx([...members.map((member) => new URL(member.url).host), `127.0.0.1:${spare}`])
  }, 60_000)

  afterAll(async () => {
    await nginx?.stop()
    for (const member of members) {
      if (member.child.exitCode === null) member.child.kill('SIGTERM')
      await member.exited
    }
    await redis?.stop()
  })

  it('spreads calls over every instance', async () => {
    const pids = new Set<string>()
    for (let i = 0; i < 6; i++) pids.add(text(await call(nginx.url, 'whoami')))
    expect(pids.size).toBe(3)
  })

  it('uses a handle made through one instance through the others', async () => {
    const [a, b, c] = members as [Member, Member, Member]
    const id = text(await call(a.url, 'counter_create'))
    expect(text(await call(b.url, 'counter_add', { id }))).toBe('1')
    expect(text(await call(c.url, 'counter_add', { id }))).toBe('2')
    const adds = await Promise.all(Array.from({ length: 12 }, () => call(nginx.url, 'counter_add', { id })))
    expect(
      adds
        .map(text)
        .map(Number)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 12 }, (_, i) => i + 3))
  })

  it('finishes on one instance an input round started on another', async () => {
    const [a, b] = members as [Member, Member]
    const asking = { meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }) }
    const first = resultOf(await call(a.url, 'ask_name', {}, asking))
    expect(first.resultType).toBe('input_required')
    const [key] = Object.keys(first.inputRequests as Record<string, unknown>)
    const second = await post(
      at(b.url),
      'tools/call',
      {
        name: 'ask_name',
        arguments: {},
        inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
        requestState: first.requestState,
      },
      asking,
      b.url,
    )
    const pid = String(members[1]!.child.pid)
    expect(text(second)).toBe(`Hello, Ada! (from ${pid})`)
  })

  it('brings a list change made on one instance to a listener on another', async () => {
    const [a, b] = members as [Member, Member]
    const stream = await openListen(at(a.url), 'cluster-listen', { toolsListChanged: true })
    try {
      const ack = await stream.next(10_000)
      expect(ack?.method).toBe('notifications/subscriptions/acknowledged')
      const sent = performance.now()
      expect(text(await call(b.url, 'announce_change'))).toBe('announced')
      const change = await stream.next(10_000)
      const latencyMs = performance.now() - sent
      expect(change?.method).toBe('notifications/tools/list_changed')
      // Reported, not asserted: this machine's load decides the figure, and tests never race the clock.
      console.log(`list change reached another instance's listener in ${latencyMs.toFixed(1)} ms`)
    } finally {
      stream.close()
    }
  })

  it('shares one rate limit across instances', async () => {
    const outcomes: boolean[] = []
    for (let i = 0; i < 8; i++) {
      const member = members[i % 3]!
      outcomes.push(resultOf(await call(member.url, 'limited')).isError !== true)
    }
    expect(outcomes).toEqual([true, true, true, true, true, false, false, false])
  })

  it('serves one 2025-era session through the balancer, whichever instance answers', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }))
    const logs: string[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(String(notification.params.data))
    })
    const transport = new StreamableHTTPClientTransport(new URL(nginx.url))
    await client.connect(transport)
    try {
      expect(transport.sessionId).toBeTruthy()
      expect(client.getServerVersion()?.name).toBe('cluster-member')
      const tools = (await client.listTools()).tools.map((tool) => tool.name)
      expect(tools).toEqual(expect.arrayContaining(['whoami', 'counter_create', 'counter_add', 'shout']))
      const textOf = (result: Awaited<ReturnType<typeof client.callTool>>): string =>
        (result.content as { text: string }[]).map((block) => block.text).join('')

      // Round robin spreads the session's calls over every instance.
      const pids = new Set<string>()
      for (let i = 0; i < 6; i++) pids.add(textOf(await client.callTool({ name: 'whoami', arguments: {} })))
      expect(pids.size).toBe(3)

      // A handle made on one instance, updated through the others.
      const id = textOf(await client.callTool({ name: 'counter_create', arguments: {} }))
      const counts: string[] = []
      for (let i = 0; i < 4; i++)
        counts.push(textOf(await client.callTool({ name: 'counter_add', arguments: { id } })))
      expect(counts).toEqual(['1', '2', '3', '4'])

      // The server asks the client mid-call; the answer comes back in a POST another instance may take.
      const greeting = textOf(await client.callTool({ name: 'ask_name', arguments: {} }))
      expect(greeting).toMatch(/^Hello, Grace! \(from \d+\)$/)

      // The log level set through one instance holds on the others: only errors come back.
      await client.setLoggingLevel('error')
      const shouted = new Set<string>()
      for (let i = 0; i < 3; i++) shouted.add(textOf(await client.callTool({ name: 'shout', arguments: {} })))
      expect(shouted.size).toBe(3)
      expect(logs.filter((line) => line.startsWith('warning'))).toEqual([])
      expect(new Set(logs)).toEqual(new Set([...shouted].map((pid) => `error from ${pid}`)))

      // The session's GET stream is held by one instance; a list change made on any instance reaches it.
      // The client opens that stream on its own after initialize, so the change is announced until it lands.
      let listChanged = false
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged = true))
      const deadline = Date.now() + 15_000
      while (!listChanged && Date.now() < deadline) {
        await client.callTool({ name: 'announce_change', arguments: {} })
        for (let waited = 0; !listChanged && waited < 25; waited++)
          await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(listChanged).toBe(true)

      // DELETE ends the session on every instance (the others hear it over Redis).
      const sessionId = transport.sessionId as string
      await transport.terminateSession()
      for (const member of members) {
        const ping = async (): Promise<number> =>
          (
            await fetch(member.url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-session-id': sessionId,
                'mcp-protocol-version': '2025-11-25',
              },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
            })
          ).status
        const deadline = Date.now() + 15_000
        let status = await ping()
        while (status !== 404 && Date.now() < deadline) status = await ping()
        expect(status).toBe(404)
      }
    } finally {
      await client.close()
    }
  })

  it('serves a 2025-era session on an instance started in the middle of it', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' })
    const logs: string[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(String(notification.params.data))
    })
    const transport = new StreamableHTTPClientTransport(new URL(nginx.url))
    await client.connect(transport)
    try {
      await client.setLoggingLevel('error')
      // Started after the session set its level: it reads the level from Redis at the session's first request.
      const late = await startMember(redis.url, spare)
      members.push(late)
      const pid = String(late.child.pid)
      let answered = ''
      for (let i = 0; i < 12 && answered !== pid; i++) {
        const result = await client.callTool({ name: 'shout', arguments: {} })
        answered = (result.content as { text: string }[]).map((block) => block.text).join('')
      }
      expect(answered).toBe(pid)
      expect(logs).toContain(`error from ${pid}`)
      expect(logs).not.toContain(`warning from ${pid}`)
      await transport.terminateSession()
    } finally {
      await client.close()
    }
  })

  it('loses only the calls in flight on an instance that is killed under load', async () => {
    const workers = 6
    const victim = members[2]!
    let succeeded = 0
    let failed = 0
    let afterKill = 0
    let killed = false
    const worker = async (): Promise<void> => {
      // Each worker keeps calling until the kill has happened and 30 more calls have succeeded overall.
      while (afterKill < 30) {
        const answer = await call(nginx.url, 'whoami').catch(() => undefined)
        const ok = answer?.status === 200 && resultOf(answer).isError !== true
        if (ok) succeeded++
        else failed++
        if (ok && killed) afterKill++
        if (!killed && succeeded >= 60) {
          killed = true
          victim.child.kill('SIGKILL')
          await victim.exited
        }
      }
    }
    await Promise.all(Array.from({ length: workers }, worker))
    expect(killed).toBe(true)
    console.log(`killed one of three instances under load: ${succeeded} calls succeeded, ${failed} failed`)
    // A call fails only when it was on the victim as it died: at most one per worker.
    expect(failed).toBeLessThanOrEqual(workers)
    const pids = new Set<string>()
    for (let i = 0; i < 12; i++) pids.add(text(await call(nginx.url, 'whoami')))
    expect(pids.has(String(victim.child.pid))).toBe(false)
    expect(pids.size).toBe(members.length - 1)
  })
})
