/**
 * A hostile or broken authorization server, behind toolwire's real bearerAuth resource server: metadata for
 * another issuer, plain-http endpoints, a huge or a silent answer, a redirect to another origin. Each ends in
 * a clear AuthorizationError, and nothing (no registration, no code, no token) goes where it should not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AuthorizationError, connect, MemoryTokenStore, type OAuthOptions } from '../src/client/index.js'
import { startProtectedNotes, type ProtectedNotes } from './helpers/protected-notes.js'

type Route = (req: IncomingMessage, res: ServerResponse) => void

interface Recorder {
  readonly origin: string
  readonly seen: { path: string; authorization: string | undefined }[]
  routes: Record<string, Route>
  close(): Promise<void>
}

async function recorder(): Promise<Recorder> {
  const server: Server = createServer()
  const self: Recorder = {
    origin: '',
    seen: [],
    routes: {},
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    self.seen.push({ path, authorization: req.headers.authorization })
    const route = self.routes[path]
    if (route) route(req, res)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return Object.assign(self, { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
}

const json =
  (body: unknown): Route =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }

let as: Recorder
let elsewhere: Recorder
let mcp: ProtectedNotes

beforeAll(async () => {
  as = await recorder()
  elsewhere = await recorder()
  mcp = await startProtectedNotes(as.origin)
})

afterEach(() => {
  as.routes = {}
  as.seen.length = 0
  elsewhere.routes = {}
  elsewhere.seen.length = 0
})

afterAll(async () => {
  await mcp.close()
  await as.close()
  await elsewhere.close()
})

function metadata(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    issuer: as.origin,
    authorization_endpoint: `${as.origin}/authorize`,
    token_endpoint: `${as.origin}/token`,
    registration_endpoint: `${as.origin}/register`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...overrides,
  }
}

let authorizeCalls = 0
const options = (extra: Partial<OAuthOptions> = {}): OAuthOptions => ({
  store: new MemoryTokenStore(),
  redirectUri: 'http://127.0.0.1:1/callback',
  authorize: () => {
    authorizeCalls++
    return Promise.reject(new Error('the user should never be sent to this server'))
  },
  timeoutMs: 2_000,
  ...extra,
})

async function failure(extra: Partial<OAuthOptions> = {}): Promise<AuthorizationError> {
  const client = connect({ url: mcp.url }, { auth: options(extra) })
  try {
    const error = await client.listTools().then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toBeInstanceOf(AuthorizationError)
    return error as AuthorizationError
  } finally {
    await client.close()
  }
}

const sentAnything = (): boolean =>
  as.seen.some(({ path }) => ['/register', '/token', '/authorize'].includes(path))

describe('hostile authorization server', () => {
  it('metadata naming another issuer is not used', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = json(
      metadata({ issuer: 'https://honest.example' }),
    )
    const error = await failure()
    expect(error.message).toContain('https://honest.example')
    expect(error.message).toContain('not used')
    expect(sentAnything()).toBe(false)
  })

  it('plain-http endpoints on a non-loopback host are refused', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = json(
      metadata({ token_endpoint: 'http://as.example.test/token' }),
    )
    const error = await failure()
    expect(error.message).toMatch(/token_endpoint .* must use https/)
    expect(sentAnything()).toBe(false)
  })

  it('metadata without PKCE S256 is refused before the user is involved', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = json(
      metadata({ code_challenge_methods_supported: undefined }),
    )
    as.routes['/register'] = (_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"client_id":"c"}')
    const before = authorizeCalls
    const error = await failure()
    expect(error.message).toContain('PKCE')
    expect(authorizeCalls).toBe(before)
  })

  it('a huge answer is cut off', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(`{"issuer":"${as.origin}","pad":"${'x'.repeat(2 * 1024 * 1024)}"}`)
    }
    const error = await failure()
    expect(error.message).toContain('larger than')
  })

  it('a server that never answers runs into the time limit', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = () => {
      // Never answers: the client's own deadline must end the wait.
    }
    const error = await failure({ timeoutMs: 300 })
    expect(error.message).toContain('did not answer')
  })

  it('a redirect to another origin is not followed', async () => {
    as.routes['/.well-known/oauth-authorization-server'] = (_req, res) =>
      res.writeHead(302, { location: `${elsewhere.origin}/metadata` }).end()
    elsewhere.routes['/metadata'] = json(metadata())
    const error = await failure()
    expect(error.message).toContain('redirects are not followed')
    expect(elsewhere.seen).toEqual([])
  })

  it('a token stored for one server is never sent to another origin', async () => {
    const store = new MemoryTokenStore()
    await store.setTokens(mcp.url, {
      accessToken: 'secret-token-for-notes',
      tokenType: 'Bearer',
      issuer: as.origin,
      resource: mcp.url,
    })
    elsewhere.routes['/mcp'] = (_req, res) => res.writeHead(404).end()
    const client = connect({ url: `${elsewhere.origin}/mcp` }, { auth: options({ store }) })
    await client.listTools().catch(() => undefined)
    await client.close()
    expect(elsewhere.seen.length).toBeGreaterThan(0)
    expect(elsewhere.seen.every(({ authorization }) => authorization === undefined)).toBe(true)
  })
})
