import { createServer, type Server as NodeHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, defineServer, defineTool, type Server } from '../../src/index.js'
import { serveStdio } from '../../src/transports/stdio/index.js'
import { errorOf, meta, post, resultOf } from '../helpers/http.js'
import { assertServerMessage } from '../helpers/spec-schema.js'
import { callTool, type Live, textOf } from '../helpers/live.js'

const ISSUER = 'https://auth.example.test'
let jwks: NodeHttpServer
let jwksUrl: string
let signingKey: CryptoKey
let strangerKey: CryptoKey
let server: Server
let mcp: Live
let resource: string

function tools() {
  return [
    defineTool({ name: 'echo', description: 'Echoes', handler: (_a, ctx) => `hello ${ctx.auth?.subject}` }),
    defineTool({ name: 'notes_read', scopes: ['notes:read'], handler: () => 'notes' }),
    defineTool({ name: 'notes_write', scopes: ['notes:write'], handler: () => 'written' }),
  ]
}

async function token(
  claims: Record<string, unknown>,
  options: {
    key?: CryptoKey
    expiresIn?: string | number
    audience?: string
    issuer?: string
    alg?: string
  } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: 'k1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? resource)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? signingKey)
}

const bearer = (value: string): { headers: Record<string, string> } => ({
  headers: { authorization: `Bearer ${value}` },
})

beforeAll(async () => {
  const pair = await generateKeyPair('ES256')
  signingKey = pair.privateKey
  strangerKey = (await generateKeyPair('ES256')).privateKey
  const publicJwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }))
  })
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`

  // The resource URL must be known before the server listens; reserve a port by listening once.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as AddressInfo).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  resource = `http://127.0.0.1:${port}/mcp`
  server = defineServer({
    name: 'secured',
    version: '1.0.0',
    tools: tools(),
    security: {
      auth: bearerAuth({
        resource,
        authorizationServers: [ISSUER],
        jwt: { issuer: ISSUER, jwksUrl },
        scopeHierarchy: { 'notes:write': ['notes:read'] },
        resourceName: 'Notes',
      }),
    },
  })
  const { serveNode } = await import('../../src/transports/http/node.js')
  const running = await serveNode(server, { host: '127.0.0.1', port })
  const viaFetch = (request: Request): Promise<Response> => fetch(request)
  mcp = {
    url: running.url,
    running,
    call: (method, params = {}, options = {}) => post(viaFetch, method, params, options, running.url),
    close: () => running.close(),
  }
})

afterAll(async () => {
  await mcp.close()
  await new Promise<void>((resolve) => jwks.close(() => resolve()))
})

const challengeOf = (answer: { headers: Headers }): string => answer.headers.get('www-authenticate') ?? ''

describe('bearer authentication over HTTP', () => {
  it('serves the protected resource metadata at both well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, resource))
      expect(response.status).toBe(200)
      const document = (await response.json()) as Record<string, unknown>
      expect(document.resource).toBe(resource)
      expect(document.authorization_servers).toEqual([ISSUER])
      expect(document.scopes_supported).toEqual(['notes:read', 'notes:write'])
      expect(document.resource_name).toBe('Notes')
    }
    expect((await fetch(new URL('/.well-known/other', resource))).status).toBe(404)
  })

  it('refuses a request without a token: 401 pointing at the metadata', async () => {
    const answer = await mcp.call('tools/list')
    expect(answer.status).toBe(401)
    expect(challengeOf(answer)).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', resource).href}"`,
    )
    expect(errorOf(answer).message).toMatch(/bearer access token is required/)
    const basic = await mcp.call('tools/list', {}, { headers: { authorization: 'Basic dXNlcjpwdw==' } })
    expect(basic.status).toBe(401)
  })

  it.each([
    [
      'expired',
      () => token({ sub: 'ann', scope: 'notes:read' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      /expired/,
    ],
    [
      'for another resource',
      () => token({ sub: 'ann' }, { audience: 'https://other.example.test/mcp' }),
      /audience/,
    ],
    [
      'from an untrusted issuer',
      () => token({ sub: 'ann' }, { issuer: 'https://evil.example.test' }),
      /issuer/,
    ],
    ['signed by an unknown key', () => token({ sub: 'ann' }, { key: strangerKey }), /signature/],
    ['with no subject', () => token({ scope: 'notes:read' }), /subject/],
    ['malformed', async () => 'not.a.jwt', /malformed/],
  ])('refuses a token %s with 401 invalid_token', async (_what, make, reason) => {
    const answer = await mcp.call('tools/list', {}, bearer(await make()))
    expect(answer.status).toBe(401)
    expect(challengeOf(answer)).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/,
    )
    expect(errorOf(answer).message).toMatch(reason)
  })

  it('refuses an HMAC token when only asymmetric algorithms are allowed', async () => {
    const forged = await new SignJWT({ sub: 'ann' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(resource)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-shared-secret-that-an-attacker-picked'))
    const answer = await mcp.call('tools/list', {}, bearer(forged))
    expect(answer.status).toBe(401)
    expect(errorOf(answer).message).toMatch(/algorithm/)
  })

  it('shows each caller only the tools its scopes allow, as a private list', async () => {
    const none = resultOf(await mcp.call('tools/list', {}, bearer(await token({ sub: 'ann' }))))
    expect((none.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo'])
    expect(none.cacheScope).toBe('private')
    const reader = resultOf(
      await mcp.call('tools/list', {}, bearer(await token({ sub: 'ann', scope: 'notes:read' }))),
    )
    expect((reader.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'notes_read'])
    // notes:write implies notes:read through the configured hierarchy
    const writer = resultOf(
      await mcp.call('tools/list', {}, bearer(await token({ sub: 'bob', scp: ['notes:write'] }))),
    )
    expect((writer.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'echo',
      'notes_read',
      'notes_write',
    ])
  })

  it('answers a call outside the granted scopes with 403 insufficient_scope for step-up', async () => {
    const reader = bearer(await token({ sub: 'ann', scope: 'notes:read' }))
    const answer = await callTool(mcp, 'notes_write', {}, reader)
    expect(answer.status).toBe(403)
    expect(challengeOf(answer)).toMatch(
      /^Bearer error="insufficient_scope", scope="notes:write", resource_metadata="[^"]+oauth-protected-resource\/mcp"/,
    )
    expect(errorOf(answer).data).toEqual({ requiredScopes: ['notes:write'] })
    const allowed = resultOf(await callTool(mcp, 'notes_read', {}, reader))
    expect(textOf(allowed)).toBe('notes')
    const upgraded = resultOf(
      await callTool(mcp, 'notes_write', {}, bearer(await token({ sub: 'ann', scope: 'notes:write' }))),
    )
    expect(textOf(upgraded)).toBe('written')
  })

  it('keeps a client-credentials identity apart from the user of the same name', async () => {
    const ask = defineTool({
      name: 'ask',
      handler: async (_a, ctx) =>
        (await ctx.input.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }, 'q'))
          .action,
    })
    const auth = bearerAuth({ resource, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwksUrl } })
    const handler = createFetchHandler(
      defineServer({
        name: 'asking',
        version: '1.0.0',
        tools: [ask],
        requestState: { secret: 'identity-namespaces-secret' },
        security: { auth },
      }),
    )
    const user = bearer(await token({ sub: 'alice' }))
    const client = bearer(await token({ client_id: 'alice' }))
    const elicitation = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } })
    const call = (params: Record<string, unknown>, who: { headers: Record<string, string> }) =>
      post(
        handler,
        'tools/call',
        { name: 'ask', arguments: {}, ...params },
        { ...who, meta: elicitation },
        resource,
      )
    const asked = resultOf(await call({}, user))
    expect(asked.resultType).toBe('input_required')
    const retry = {
      inputResponses: { q: { action: 'accept', content: {} } },
      requestState: asked.requestState,
    }
    expect(errorOf(await call(retry, client)).message).toMatch(/another principal/)
    expect(textOf(resultOf(await call(retry, user)))).toBe('accept')
  })

  it('authenticates every request on its own and hands the identity to the handler', async () => {
    const good = bearer(await token({ sub: 'carol' }))
    expect(textOf(resultOf(await callTool(mcp, 'echo', {}, good)))).toBe('hello carol')
    expect((await callTool(mcp, 'echo', {})).status).toBe(401)
    expect(textOf(resultOf(await callTool(mcp, 'echo', {}, good)))).toBe('hello carol')
  })
})

describe('bearer authentication elsewhere', () => {
  it('serves the metadata from the fetch handler and checks tokens there too', async () => {
    const handler = createFetchHandler(server)
    const response = await handler(
      new Request(new URL('/.well-known/oauth-protected-resource/mcp', resource)),
    )
    expect(response.status).toBe(200)
    expect(((await response.json()) as { resource: string }).resource).toBe(resource)
    const answer = await post(handler, 'tools/list', {}, {}, resource)
    expect(answer.status).toBe(401)
  })

  it('answers 503, not 401, when the key set cannot be fetched', async () => {
    const unreachable = defineServer({
      name: 'x',
      version: '1',
      tools: tools(),
      logger: { error: () => {}, warn: () => {} },
      security: {
        auth: bearerAuth({
          resource,
          authorizationServers: [ISSUER],
          jwt: { issuer: ISSUER, jwksUrl: 'http://127.0.0.1:9/jwks.json' },
        }),
      },
    })
    const answer = await post(
      createFetchHandler(unreachable),
      'tools/list',
      {},
      bearer(await token({ sub: 'a' })),
      resource,
    )
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('5')
  })

  it('rejects configurations that would skip the audience or the verifier', () => {
    expect(() =>
      bearerAuth({ resource: 'not a url', authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwksUrl } }),
    ).toThrow(/absolute URL/)
    expect(() =>
      bearerAuth({ resource, authorizationServers: [], jwt: { issuer: ISSUER, jwksUrl } }),
    ).toThrow(/authorization server/)
    expect(() => bearerAuth({ resource, authorizationServers: [ISSUER] })).toThrow(/exactly one/)
  })

  it('leaves stdio without HTTP auth: the local user sees every tool', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const connection = serveStdio(server, { input, output })
    const lines: string[] = []
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)))
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })}\n`,
    )
    await expect.poll(() => lines.length).toBe(1)
    const message = JSON.parse(lines[0] as string) as { result: { tools: { name: string }[] } }
    assertServerMessage(message, 'tools/list')
    expect(message.result.tools.map((t) => t.name)).toEqual(['echo', 'notes_read', 'notes_write'])
    input.end()
    await connection.closed
  })
})

describe('bearer authentication with a fixed key and server-wide scopes', () => {
  const secret = new TextEncoder().encode('a-long-random-hmac-secret-for-tests-only')
  const hmacServer = defineServer({
    name: 'hmac',
    version: '1',
    tools: tools(),
    security: {
      auth: bearerAuth({
        resource: 'https://mcp.example.test/mcp',
        authorizationServers: [ISSUER],
        jwt: { issuer: ISSUER, key: secret },
        requiredScopes: ['mcp'],
      }),
    },
  })
  const handler = createFetchHandler(hmacServer, { originPolicy: false })
  const hmacToken = (scope: string): Promise<string> =>
    new SignJWT({ sub: 'dana', scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience('https://mcp.example.test/mcp')
      .setExpirationTime('1m')
      .sign(secret)
  const url = 'https://mcp.example.test/mcp'

  it('asks for the server-wide scope in the first challenge, and refuses tokens without it with 403', async () => {
    const missing = await post(handler, 'tools/list', {}, {}, url)
    expect(missing.status).toBe(401)
    expect(challengeOf(missing)).toBe(
      'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    )
    const narrow = await post(handler, 'tools/list', {}, bearer(await hmacToken('notes:read')), url)
    expect(narrow.status).toBe(403)
    expect(challengeOf(narrow)).toMatch(/^Bearer error="insufficient_scope", scope="mcp"/)
    const ok = await post(handler, 'tools/list', {}, bearer(await hmacToken('mcp notes:read')), url)
    expect((resultOf(ok).tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'notes_read'])
    const step = await post(
      handler,
      'tools/call',
      { name: 'notes_write', arguments: {} },
      bearer(await hmacToken('mcp')),
      url,
    )
    expect(step.status).toBe(403)
    expect(challengeOf(step)).toMatch(/scope="mcp notes:write"/)
  })

  it('answers only GET and HEAD on the metadata document', async () => {
    const metadata = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp'
    const head = await handler(new Request(metadata, { method: 'HEAD' }))
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    const posted = await handler(new Request(metadata, { method: 'POST', body: '{}' }))
    expect(posted.status).toBe(405)
    expect(posted.headers.get('allow')).toBe('GET, HEAD')
    const document = (await (await handler(new Request(metadata))).json()) as Record<string, unknown>
    expect(document.scopes_supported).toEqual(['mcp', 'notes:read', 'notes:write'])
    expect(document.bearer_methods_supported).toEqual(['header'])
  })
})

describe('failed authentication attempts per client address', () => {
  it('answers 429 once an address has sent too many bad tokens, valid ones included, until the window ends', async () => {
    const secret = new TextEncoder().encode('another-long-random-hmac-secret-for-tests')
    const guarded = defineServer({
      name: 'guarded',
      version: '1',
      tools: tools(),
      security: {
        auth: bearerAuth({
          resource: 'https://mcp.example.test/mcp',
          authorizationServers: [ISSUER],
          jwt: { issuer: ISSUER, key: secret },
          failedAttempts: { points: 3, durationMs: 60_000 },
        }),
      },
    })
    const { serveNode } = await import('../../src/transports/http/node.js')
    const running = await serveNode(guarded, { host: '127.0.0.1', port: 0 })
    const viaFetch = (request: Request): Promise<Response> => fetch(request)
    try {
      const attempt = (headers: Record<string, string>) =>
        post(viaFetch, 'tools/list', {}, { headers }, running.url)
      for (let i = 0; i < 3; i++)
        expect((await attempt({ authorization: `Bearer guess-${i}` })).status).toBe(401)
      const blocked = await attempt({ authorization: 'Bearer guess-3' })
      expect(blocked.status).toBe(429)
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(50)
      expect(errorOf(blocked).message).toMatch(/too many missing or invalid access tokens from this address/)
      const valid = await new SignJWT({ sub: 'eve' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(ISSUER)
        .setAudience('https://mcp.example.test/mcp')
        .setExpirationTime('1m')
        .sign(secret)
      expect((await attempt({ authorization: `Bearer ${valid}` })).status).toBe(429)
      // Without a client address (the fetch handler here) the limit cannot apply, and tokens are checked.
      const inProcess = createFetchHandler(guarded, { originPolicy: false })
      const answer = await post(inProcess, 'tools/list', {}, bearer(valid), 'https://mcp.example.test/mcp')
      expect(answer.status).toBe(200)
    } finally {
      await running.close()
    }
  })
})

describe("scopes together with the server's own tool visibility", () => {
  it('keeps a tool the server hides unknown, even to a caller without its scope', async () => {
    const secret = new TextEncoder().encode('a-third-long-random-hmac-secret-for-tests')
    const server = defineServer({
      name: 'hidden',
      version: '1',
      tools: tools(),
      toolVisibility: (tool) => tool.name !== 'notes_write',
      security: {
        auth: bearerAuth({
          resource: 'https://mcp.example.test/mcp',
          authorizationServers: [ISSUER],
          jwt: { issuer: ISSUER, key: secret },
        }),
      },
    })
    const token = await new SignJWT({ sub: 'fay', scope: 'notes:read' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience('https://mcp.example.test/mcp')
      .setExpirationTime('1m')
      .sign(secret)
    const handler = createFetchHandler(server, { originPolicy: false })
    const url = 'https://mcp.example.test/mcp'
    const hidden = await post(
      handler,
      'tools/call',
      { name: 'notes_write', arguments: {} },
      bearer(token),
      url,
    )
    expect(hidden.status).toBe(200)
    expect(errorOf(hidden).message).toBe('Unknown tool: notes_write')
    const list = resultOf(await post(handler, 'tools/list', {}, bearer(token), url))
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'notes_read'])
  })
})
