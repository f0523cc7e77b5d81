/**
 * The inspector's side of MCP Apps views without a browser (docs/inspector.md, "Tool views"): the `view` and
 * `view-call` operations of the local API, and the sandbox proxy's listener (another origin than the page:
 * refuses a rebinding Host, any page but the inspector's, and CSP entries that are not origins; serves the
 * view's policy, framable only by the page). Real CLI process, real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startInspector, type Inspector } from './helpers/inspector.js'
import { ROOT } from './helpers/paths.js'
import { rawRequest } from './helpers/raw-request.js'

describe('toolwire inspect: tool views without a browser', () => {
  let folder: string
  let inspector: Inspector
  let page: URL
  let sandbox: URL
  const api = async (operation: string, body: unknown): Promise<Record<string, unknown>> => {
    const answer = await rawRequest(new URL(`/api/${operation}`, page), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-inspector-token': page.searchParams.get('token') ?? '',
      },
      body: JSON.stringify(body),
    })
    if (answer.status !== 200) throw new Error(`${operation}: HTTP ${answer.status} ${answer.body}`)
    return JSON.parse(answer.body) as Record<string, unknown>
  }
  const proxy = (query: Record<string, string>): URL => {
    const url = new URL('/proxy', sandbox)
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value)
    return url
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toolwire-sandbox-'))
    // The view's script is not run here: any script will do.
    writeFileSync(join(folder, 'view.js'), 'document.title = "probe"\n')
    inspector = await startInspector([
      'inspect',
      '--no-open',
      '--',
      process.execPath,
      join(ROOT, 'test/fixtures/inspector-apps-server.mjs'),
      join(folder, 'view.js'),
    ])
    page = new URL(inspector.url)
    // Connected once the CLI has reached the server: a bounded wait for the state, no fixed sleep.
    const deadline = Date.now() + 30_000
    while ((await api('state', {})).connected !== true) {
      if (Date.now() > deadline) throw new Error(`the inspector did not connect: ${inspector.stderr()}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const { view } = (await api('view', { tool: 'probe_view' })) as { view: { sandboxOrigin: string } }
    sandbox = new URL(view.sandboxOrigin)
  }, 60_000)
  afterAll(async () => {
    await inspector?.stop()
    if (folder) rmSync(folder, { recursive: true, force: true })
  })

  it('gives the page a tool’s checked view and the proxy’s origin, another port of 127.0.0.1', async () => {
    const { view } = (await api('view', { tool: 'probe_view' })) as { view: Record<string, unknown> }
    expect(view.uri).toBe('ui://probe/view')
    expect(String(view.html)).toContain('Probe view')
    expect(sandbox.hostname).toBe('127.0.0.1')
    expect(sandbox.origin).not.toBe(page.origin)
    const open = (await api('view', { tool: 'probe_open_view' })) as { view: { meta: unknown } }
    expect(open.view.meta).toEqual({ csp: { connectDomains: ['http://127.0.0.1:*'] } })
    expect(await api('view', { tool: 'echo' })).toEqual({ view: null })
    expect(String((await api('view', { tool: 'no_such_tool' })).error)).toContain('no_such_tool')
  })

  it('lets the page frame only the proxy, and serves only the chunks it built', async () => {
    const served = await rawRequest(new URL(`/?token=${page.searchParams.get('token') ?? ''}`, page))
    expect(String(served.headers['content-security-policy'])).toContain(`frame-src ${sandbox.origin}`)
    expect((await rawRequest(new URL('/chunks/no-such-chunk.js', page))).status).toBe(404)
    expect((await rawRequest(new URL('/chunks/..%2Fapp.js', page))).status).toBe(404)
  })

  it('calls app-visible tools for a view, and answers any other tool with one error', async () => {
    const echoed = await api('view-call', { callId: 'v1', tool: 'echo', args: { text: 'hi' } })
    expect(echoed.result).toMatchObject({ content: [{ type: 'text', text: 'echo: hi' }] })
    const hidden = await api('view-call', { callId: 'v2', tool: 'model_only', args: {} })
    const missing = await api('view-call', { callId: 'v3', tool: 'no_such_tool', args: {} })
    expect(hidden).toEqual({ error: 'Tool model_only is not available to this app' })
    expect(missing).toEqual({ error: 'Tool no_such_tool is not available to this app' })
  })

  it('serves the proxy under the restrictive default policy, framable by the page only', async () => {
    const served = await rawRequest(proxy({ host: page.origin }))
    expect(served.status).toBe(200)
    const policy = String(served.headers['content-security-policy'])
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("connect-src 'none'")
    expect(policy).toContain(`frame-ancestors ${page.origin}`)
    expect(policy).not.toContain('unsafe-eval')
    expect(served.body).toContain('<script src="/proxy.js"></script>')
    expect(served.body.match(/<script/g)).toHaveLength(1)
    const script = await rawRequest(new URL('/proxy.js', sandbox))
    expect(script.status).toBe(200)
    expect(script.headers['content-type']).toMatch(/^text\/javascript/)
  })

  it('builds the policy from the view’s declared domains, and refuses entries that are not origins', async () => {
    const declared = await rawRequest(
      proxy({
        host: page.origin,
        csp: JSON.stringify({
          connectDomains: ['https://api.example.com'],
          resourceDomains: ['https://cdn.example'],
        }),
      }),
    )
    const policy = String(declared.headers['content-security-policy'])
    expect(policy).toContain('connect-src https://api.example.com')
    expect(policy).toMatch(/script-src [^;]*https:\/\/cdn\.example/)
    for (const csp of [
      JSON.stringify({ connectDomains: ["'unsafe-eval'"] }),
      JSON.stringify({ resourceDomains: ['https://a.example; script-src *'] }),
      JSON.stringify({ connectDomains: ['*'] }),
      '[]',
      'not json',
    ]) {
      expect((await rawRequest(proxy({ host: page.origin, csp }))).status, csp).toBe(400)
    }
  })

  it('refuses another page, a rebinding Host, other methods and paths: the proxy has no API', async () => {
    expect((await rawRequest(proxy({ host: 'https://evil.example' }))).status).toBe(400)
    expect((await rawRequest(proxy({}))).status).toBe(400)
    const rebound = await rawRequest(proxy({ host: page.origin }), {
      headers: { host: `evil.example:${sandbox.port}` },
    })
    expect(rebound.status).toBe(403)
    expect((await rawRequest(proxy({ host: page.origin }), { method: 'POST' })).status).toBe(405)
    expect((await rawRequest(new URL('/api/state', sandbox))).status).toBe(404)
    expect((await rawRequest(new URL('/', sandbox))).status).toBe(404)
  })
})
