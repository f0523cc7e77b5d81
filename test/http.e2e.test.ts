/** Streamable HTTP over a real socket: the node adapter, as served by `toolwire serve`. */
import { request as httpRequest } from 'node:http'
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, meta, post, resultOf, standardHeaders } from './helpers/http.js'
import { CLI, testServer } from './helpers/paths.js'

const SERVER = testServer('core-server.mjs')
let child: ReturnType<typeof spawn>
let url = ''
let port = 0
const stderr: string[] = []
const fetcher = (request: Request) => fetch(request)
const call = (name: string, args: Record<string, unknown> = {}, options = {}) =>
  post(fetcher, 'tools/call', { name, arguments: args }, options, url)

beforeAll(async () => {
  child = spawn(process.execPath, [CLI, 'serve', SERVER, '--http', '127.0.0.1:0'], { stdio: 'pipe' })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 10_000)
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const match = /http:\/\/\S+\/mcp/.exec(chunk)
      if (match) {
        clearTimeout(timer)
        resolve(match[0])
      }
    })
  })
  port = Number(new URL(url).port)
})

afterAll(async () => {
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
})

/** A raw request, to control Host/Origin and to hang up mid-response. */
function raw(headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const discoverBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: { _meta: meta() },
})

describe('node adapter over a real socket', () => {
  it('serves discover, list and call', async () => {
    expect(resultOf(await post(fetcher, 'server/discover', {}, {}, url)).supportedVersions).toEqual([
      '2026-07-28',
    ])
    const list = resultOf(await post(fetcher, 'tools/list', {}, {}, url))
    expect(list.nextCursor).toBeTypeOf('string')
    expect(resultOf(await call('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('refuses a foreign Host or Origin with 403 and accepts its own', async () => {
    const headers = standardHeaders('server/discover', {})
    expect((await raw({ ...headers, host: 'evil.example.com' }, discoverBody)).status).toBe(403)
    expect((await raw({ ...headers, origin: 'http://evil.example.com' }, discoverBody)).status).toBe(403)
    expect((await raw({ ...headers, origin: `http://localhost:${port}` }, discoverBody)).status).toBe(200)
    expect((await raw({ ...headers, host: `localhost:${port}` }, discoverBody)).status).toBe(200)
  })

  it('gives each request its own Host/Origin verdict, however they alternate and repeat', async () => {
    const headers = standardHeaders('server/discover', {})
    const own = { ...headers, host: `127.0.0.1:${port}` }
    const sequence: [Record<string, string>, number][] = [
      [own, 200],
      [{ ...headers, host: 'evil.example.com' }, 403],
      [{ ...headers, host: 'evil.example.com' }, 403],
      [own, 200],
      [own, 200],
      [{ ...own, origin: 'http://evil.example.com' }, 403],
      [{ ...own, origin: 'http://evil.example.com' }, 403],
      [{ ...own, origin: `http://localhost:${port}` }, 200],
      [{ ...headers, host: `127.0.0.1:${port}.evil.example.com` }, 403],
      [own, 200],
    ]
    for (const [index, [sent, status]] of sequence.entries())
      expect((await raw(sent, discoverBody)).status, `request ${index}`).toBe(status)
  })

  it('answers 413 for an oversized body without reading it all', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(5 * 1024 * 1024) },
    })
    expect((await raw(standardHeaders('tools/list', {}), big)).status).toBe(413)
  })

  it('answers 404 for other paths, naming the MCP endpoint', async () => {
    const response = await fetch(url.replace('/mcp', '/other'), { method: 'POST', body: '{}' })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await response.text()).toBe('Not found: the MCP endpoint is /mcp\n')
  })

  it('prints where it serves: the URL of the MCP endpoint on the bound port', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(port).toBeGreaterThan(0)
  })

  it('streams progress on the POST response as SSE', async () => {
    const answer = await call('progress', {}, { meta: meta({ progressToken: 'tok' }) })
    expect(answer.contentType).toBe('text/event-stream')
    expect(answer.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(3)
  })

  it('treats a client disconnect as cancellation: the handler signal fires', async () => {
    const before = resultOf(await call('cancelled_count')).structuredContent as { cancelled: number }
    const controller = new AbortController()
    const started = stderr.join('').split('block started').length
    const pending = call('block', {}, { signal: controller.signal }).catch((error: unknown) => error)
    await expect.poll(() => stderr.join('').split('block started').length).toBe(started + 1)
    controller.abort()
    await pending
    await expect
      .poll(
        async () =>
          (resultOf(await call('cancelled_count')).structuredContent as { cancelled: number }).cancelled,
      )
      .toBe(before.cancelled + 1)
  })

  it('cancels the handler of a request whose client hung up as soon as it was sent', async () => {
    // The whole request, then the hang-up: the close may reach the server before or after its handler
    // starts, and either way every handler started is cancelled.
    const count = async () =>
      (resultOf(await call('cancelled_count')).structuredContent as { cancelled: number }).cancelled
    const before = await count()
    const startedBefore = stderr.join('').split('block started').length
    const params = { name: 'block', arguments: {}, _meta: meta() }
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })
    const head = Object.entries({ ...standardHeaders('tools/call', params), host: `127.0.0.1:${port}` })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    const request = `POST /mcp HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    for (let round = 0; round < 5; round++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request, () => socket.destroy()))
        socket.on('close', () => resolve())
        socket.on('error', reject)
      })
    }
    const started = () => stderr.join('').split('block started').length - startedBefore
    await expect.poll(started).toBeGreaterThan(0)
    // Each started handler is cancelled: the count catches up with the starts.
    await expect.poll(async () => (await count()) - before - started(), { timeout: 20_000 }).toBe(0)
  })

  it('outlives bodies cut off halfway and bodies that break their chunked framing', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
    const head = Object.entries({ ...standardHeaders('tools/list', {}), host: `127.0.0.1:${port}` })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    const hangUpAfter = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(text, () => socket.destroy()))
        socket.on('close', () => resolve())
        socket.on('error', reject)
      })
    await hangUpAfter(
      `POST /mcp HTTP/1.1\r\n${head}content-length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    )
    const broken = `POST /mcp HTTP/1.1\r\n${head}transfer-encoding: chunked\r\n\r\n5\r\n{"jso\r\nzz\r\n`
    const refused = await new Promise<string>((resolve, reject) => {
      let answer = ''
      const socket = connect(port, '127.0.0.1', () => socket.write(broken))
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk))
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
    })
    expect(refused).toMatch(/^HTTP\/1\.1 400/)
    expect(resultOf(await call('echo', { text: 'still here' })).content).toEqual([
      { type: 'text', text: 'still here' },
    ])
  })

  it('keeps concurrent clients with identical request ids apart', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('echo', { text: `client ${i}`, delayMs: 20 - i }, { id: 1 })),
    )
    answers.forEach((answer, i) => {
      expect(answer.response?.id).toBe(1)
      expect(resultOf(answer).content).toEqual([{ type: 'text', text: `client ${i}` }])
    })
  })

  it('reports deliberate tool failures as isError results', async () => {
    expect(resultOf(await call('fail'))).toMatchObject({ isError: true })
    expect(errorOf(await call('missing')).code).toBe(-32602)
  })
})
