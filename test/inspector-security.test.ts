/**
 * The inspector's local page is guarded like a credential (docs/inspector.md, "Security model"): it listens
 * on 127.0.0.1, refuses a foreign Host (DNS rebinding) or Origin (another site's page), needs the URL's token
 * for the page and the API, serves the page under a strict Content-Security-Policy, and bounds the body it
 * reads. Real CLI process, real sockets; no browser needed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInspector, type Inspector } from './helpers/inspector.js'
import { type RawAnswer, rawRequest } from './helpers/raw-request.js'
import { CLI, ROOT } from './helpers/paths.js'

describe('toolwire inspect: the local page', () => {
  let inspector: Inspector
  let url: URL
  let token: string
  const api = (operation: string, headers: Record<string, string> = {}, body = '{}'): Promise<RawAnswer> =>
    rawRequest(new URL(`/api/${operation}`, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: url.host, ...headers },
      body,
    })

  beforeAll(async () => {
    inspector = await startInspector([
      'inspect',
      '--no-open',
      '--',
      'node',
      'dist/cli/main.js',
      'demo',
      '--stdio',
    ])
    url = new URL(inspector.url)
    token = url.searchParams.get('token') ?? ''
  }, 60_000)
  afterAll(() => inspector?.stop())

  it('prints a loopback URL with a long random token', () => {
    expect(url.hostname).toBe('127.0.0.1')
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  it('serves the page with its token, under a strict Content-Security-Policy', async () => {
    const page = await rawRequest(new URL(`/?token=${token}`, url), { headers: { host: url.host } })
    expect(page.status).toBe(200)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    expect(page.body).toContain('<script type="module" src="/app.js">')
  })

  it('refuses the page and the API without the token, or with a wrong one', async () => {
    expect((await rawRequest(new URL('/', url), { headers: { host: url.host } })).status).toBe(401)
    expect((await rawRequest(new URL('/?token=nope', url), { headers: { host: url.host } })).status).toBe(401)
    expect((await api('state')).status).toBe(401)
    expect((await api('state', { 'x-inspector-token': `${token}x` })).status).toBe(401)
    expect((await rawRequest(new URL('/api/events', url), { headers: { host: url.host } })).status).toBe(401)
    const allowed = await api('state', { 'x-inspector-token': token })
    expect(allowed.status).toBe(200)
  })

  it('refuses a foreign Host header (DNS rebinding), even with the token', async () => {
    const rebound = await rawRequest(new URL(`/?token=${token}`, url), {
      headers: { host: `evil.example:${url.port}` },
    })
    expect(rebound.status).toBe(403)
    const api403 = await api('lists', { host: 'evil.example', 'x-inspector-token': token })
    expect(api403.status).toBe(403)
    expect(api403.body).not.toContain('arithmetic')
  })

  it('refuses a foreign Origin header (another site posting to localhost), even with the token', async () => {
    const posted = await api('call', { origin: 'https://evil.example', 'x-inspector-token': token })
    expect(posted.status).toBe(403)
    const otherPort = await api('state', { origin: 'http://127.0.0.1:1', 'x-inspector-token': token })
    expect(otherPort.status).toBe(403)
    const sameOrigin = await api('state', { origin: url.origin, 'x-inspector-token': token })
    expect(sameOrigin.status).toBe(200)
  })

  it('takes only JSON POSTs on the API, and bounds the body it reads', async () => {
    const form = await api('state', { 'x-inspector-token': token, 'content-type': 'text/plain' })
    expect(form.status).toBe(415)
    const huge = await api('validate', { 'x-inspector-token': token }, `"${'x'.repeat(5 * 1024 * 1024)}"`)
    expect(huge.status).toBe(400)
    expect(huge.body).toContain('exceeds')
  })

  it('answers the API for the page: state, lists, validation with toolwire’s validator', async () => {
    const headers = { 'x-inspector-token': token }
    await expect
      .poll(async () => JSON.parse((await api('state', headers)).body) as { connected: boolean })
      .toMatchObject({ connected: true })
    const lists = JSON.parse((await api('lists', headers)).body) as { tools: { name: string }[] }
    expect(lists.tools.map((tool) => tool.name)).toContain('arithmetic')
    const invalid = JSON.parse(
      (await api('validate', headers, JSON.stringify({ tool: 'arithmetic', args: { op: 'pow', a: 'x' } })))
        .body,
    ) as { issues: string[] }
    expect(invalid.issues.length).toBeGreaterThan(0)
    const valid = JSON.parse(
      (
        await api(
          'validate',
          headers,
          JSON.stringify({ tool: 'arithmetic', args: { op: 'add', a: 1, b: 2 } }),
        )
      ).body,
    ) as { issues: string[] }
    expect(valid.issues).toEqual([])
  })
})

describe('toolwire inspect without a target', () => {
  let inspector: Inspector
  let demo: ChildProcess | undefined
  beforeAll(async () => {
    inspector = await startInspector(['inspect', '--no-open'])
  }, 60_000)
  afterAll(async () => {
    demo?.kill('SIGTERM')
    await inspector?.stop()
  })

  it('serves a page that asks for a server, and connects to the one typed in', async () => {
    const url = new URL(inspector.url)
    const headers = { 'x-inspector-token': url.searchParams.get('token') ?? '', host: url.host }
    const post = async (operation: string, body: unknown): Promise<Record<string, unknown>> => {
      const answer = await rawRequest(new URL(`/api/${operation}`, url), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return JSON.parse(answer.body) as Record<string, unknown>
    }
    expect(await post('state', {})).toMatchObject({ connected: false, target: null })
    expect(String((await post('connect', { target: 'not-a-configured-server' })).error)).toContain(
      'neither an http(s) URL nor a server configured',
    )
    demo = spawn(process.execPath, [CLI, 'demo', '--http', '127.0.0.1:0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const demoUrl = await new Promise<string>((resolve) => {
      createInterface({ input: demo!.stdout! }).on('line', (line) => {
        const match = /on (http\S+)/.exec(line)
        if (match?.[1]) resolve(match[1])
      })
    })
    expect(await post('connect', { target: demoUrl })).toEqual({ ok: true })
    expect(await post('state', {})).toMatchObject({ connected: true, era: '2026-07-28', target: demoUrl })
    const called = await post('call', { callId: 'c1', tool: 'arithmetic', args: { op: 'add', a: 2, b: 3 } })
    expect(called).toMatchObject({ result: { structuredContent: { result: 5 } }, outputIssues: [] })
  }, 60_000)
})
