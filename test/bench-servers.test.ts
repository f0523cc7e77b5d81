/**
 * The benchmark's three servers (toolwire, official SDK v2, raw node floor) answer a correct tools/call and
 * tools/list over HTTP and over stdio — the same check the benchmark runs before it loads them. With bearer
 * auth on, toolwire's bench server answers a valid token and refuses anything else. With telemetry on (the
 * real SDK), toolwire's bench server and the raw floor still answer correctly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_KINDS, authSetup } from '../bench/auth.js'
import { listenBench } from '../bench/listen.js'
import {
  callMessage,
  callProblem,
  headersFor,
  listMessage,
  listProblem,
  post,
  SERVERS,
  startHttp,
  startStdio,
  type HttpRunning,
  type StdioRunning,
} from '../bench/harness.js'
import { assertServerMessage } from './helpers/spec-schema.js'

const TOOLS = 3

describe.each(SERVERS)('bench server $name', (server) => {
  let http: HttpRunning
  let stdio: StdioRunning

  beforeAll(async () => {
    http = await startHttp(server, TOOLS)
    stdio = startStdio(server, TOOLS)
  })
  afterAll(async () => {
    await Promise.all([http?.stop(), stdio?.stop()])
  })

  it('answers tools/call and tools/list correctly over HTTP', async () => {
    const call = await post(http.url, callMessage(11, 20, 22))
    expect(call.status).toBe(200)
    expect(callProblem(JSON.parse(call.body), 11, 42)).toBeUndefined()
    const list = await post(http.url, listMessage(12))
    expect(list.status).toBe(200)
    expect(listProblem(JSON.parse(list.body), 12, TOOLS)).toBeUndefined()
    if (server.name === 'toolwire') {
      assertServerMessage(JSON.parse(call.body), 'tools/call')
      assertServerMessage(JSON.parse(list.body), 'tools/list')
    }
  })

  it('answers tools/call and tools/list correctly over stdio, several in flight', async () => {
    const calls = await Promise.all([1, 2, 3, 4].map((n) => stdio.send(callMessage(100 + n, n, n))))
    calls.forEach((answer, index) =>
      expect(callProblem(answer, 101 + index, 2 * (index + 1))).toBeUndefined(),
    )
    const list = await stdio.send(listMessage(200))
    expect(listProblem(list, 200, TOOLS)).toBeUndefined()
    if (server.name === 'toolwire') {
      for (const answer of calls) assertServerMessage(answer, 'tools/call')
      assertServerMessage(list, 'tools/list')
    }
  })

  it('is reported wrong when the answer is wrong', async () => {
    const call = await post(http.url, callMessage(13, 1, 1))
    expect(callProblem(JSON.parse(call.body), 13, 3)).toMatch(/structuredContent/)
    expect(callProblem(JSON.parse(call.body), 14, 2)).toMatch(/wrong id/)
  })
})

describe.each(AUTH_KINDS)('toolwire bench server with $label', ({ key }) => {
  let http: HttpRunning
  let token: string

  beforeAll(async () => {
    const setup = await authSetup(key)
    token = setup.token
    const message = callMessage(1)
    const headers = { ...headersFor(message), authorization: `Bearer ${token}` }
    http = await startHttp(SERVERS[0]!, TOOLS, 20_000, { env: setup.env, headers })
  })
  afterAll(async () => {
    await http?.stop()
  })

  it('answers a call with a valid token and refuses one without, or with a token of another key', async () => {
    const message = callMessage(21, 1, 2)
    const withToken = (value: string) => ({ ...headersFor(message), authorization: `Bearer ${value}` })
    const ok = await post(http.url, message, 10_000, withToken(token))
    expect(ok.status).toBe(200)
    expect(callProblem(JSON.parse(ok.body), 21, 3)).toBeUndefined()
    expect((await post(http.url, message)).status).toBe(401)
    const stranger = (await authSetup(key)).token
    const refused = await post(http.url, message, 10_000, withToken(stranger))
    expect(refused.status).toBe(401)
    expect(refused.body).toMatch(/signature/)
  })
})

describe.each([SERVERS[0]!, SERVERS[2]!])('bench server $name with telemetry on', (server) => {
  it('answers tools/call correctly', async () => {
    const http = await startHttp(server, TOOLS, 20_000, { env: { TELEMETRY: 'on' } })
    try {
      const call = await post(http.url, callMessage(31, 4, 5))
      expect(call.status).toBe(200)
      expect(callProblem(JSON.parse(call.body), 31, 9)).toBeUndefined()
    } finally {
      await http.stop()
    }
  })
})

describe('toolwire bench server with every guard-cost change at once (bench:instructions --guards)', () => {
  const env = { GUARD_VARIANT: 'timeout and output guard off+depth check unreachable', SCHEMAS: 'open' }
  it('answers tools/call as the full server does, and takes the depth limit it was given', async () => {
    const http = await startHttp(SERVERS[0]!, TOOLS, 20_000, { env })
    try {
      const call = await post(http.url, callMessage(41, 6, 7))
      expect(call.status).toBe(200)
      expect(callProblem(JSON.parse(call.body), 41, 13)).toBeUndefined()
      // 100 levels: refused by the default limit of 64, accepted under the variant's 100,000.
      const deep = callMessage(42, 1, 2)
      const params = deep.params as Record<string, unknown>
      params.arguments = { a: 1, b: 2, x: JSON.parse('['.repeat(100) + ']'.repeat(100)) }
      const answer = JSON.parse((await post(http.url, deep)).body)
      expect(answer.result?.structuredContent).toEqual({ sum: 3 })
      const full = await startHttp(SERVERS[0]!, TOOLS)
      try {
        expect(JSON.parse((await post(full.url, deep)).body).error?.message).toMatch(/deeper than 64/)
      } finally {
        await full.stop()
      }
    } finally {
      await http.stop()
    }
  })
  it('refuses a GUARD_VARIANT it does not know', async () => {
    await expect(
      startHttp(SERVERS[0]!, TOOLS, 20_000, { env: { GUARD_VARIANT: 'output guard off+no such guard' } }),
    ).rejects.toThrow()
  })
})

describe('the listen-stream benchmark', () => {
  it('holds streams open on toolwire and on the floor, and every stream gets the change', async () => {
    for (const script of ['bench/.build/listen.js', 'bench/raw-listen-server.mjs']) {
      const figures = await listenBench(script, 40)
      expect(figures.delivered).toBe(40)
    }
  }, 60_000)
})
