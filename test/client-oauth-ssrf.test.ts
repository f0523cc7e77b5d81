/**
 * A remote MCP server cannot make the OAuth client fetch loopback, link-local or private addresses through
 * `resource_metadata`, its authorization servers, or their registration and token endpoints; an MCP server
 * that is itself on such an address may. No public host is reachable from a test, so the "remote" server
 * runs on 127.0.0.2 and the client is told, through `isPrivateAddress`, that this one address is public;
 * every other address is classified as usual. Refused URLs are never connected to (the recorders see no
 * request, and 169.254.x / 10.x are refused before any socket is opened).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  AuthorizationError,
  connect,
  isPrivateAddress,
  MemoryTokenStore,
  type OAuthOptions,
} from '../src/client/index.js'
import { oauthFetch } from '../src/client/auth/oauth-fetch.js'

type Route = (req: IncomingMessage, res: ServerResponse) => void

interface Site {
  readonly origin: string
  readonly seen: string[]
  routes: Record<string, Route>
  close(): Promise<void>
}

async function site(host: string): Promise<Site> {
  const server = createServer()
  const self = {
    origin: '',
    seen: [] as string[],
    routes: {} as Record<string, Route>,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    self.seen.push(path)
    const route = self.routes[path]
    if (route) route(req, res)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return Object.assign(self, { origin: `http://${host}:${(server.address() as AddressInfo).port}` })
}

const json =
  (body: unknown): Route =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))

/** An MCP endpoint that asks for authorization and names its resource metadata document. */
const challenge =
  (resourceMetadata: string): Route =>
  (_req, res) =>
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resourceMetadata}"` }).end()

/** The one change to the usual classification: the test's "remote" host counts as public. */
const REMOTE_HOST = '127.0.0.2'
const isPrivateHere = (address: string): boolean => address !== REMOTE_HOST && isPrivateAddress(address)

const RESOURCE_PATH = '/.well-known/oauth-protected-resource'
const AS_PATH = '/.well-known/oauth-authorization-server'

let remote: Site // the "public" MCP server, with its own metadata and authorization server
let local: Site // a service on the user's loopback interface
let localMcp: Site // an MCP server on loopback itself

beforeAll(async () => {
  remote = await site(REMOTE_HOST)
  local = await site('127.0.0.1')
  localMcp = await site('127.0.0.1')
})

afterEach(() => {
  for (const each of [remote, local, localMcp]) {
    each.routes = {}
    each.seen.length = 0
  }
})

afterAll(async () => {
  await Promise.all([remote.close(), local.close(), localMcp.close()])
})

const options = (extra: Partial<OAuthOptions> = {}): OAuthOptions => ({
  store: new MemoryTokenStore(),
  redirectUri: 'http://127.0.0.1:1/callback',
  authorize: () => Promise.reject(new Error('the user should never be sent anywhere here')),
  isPrivateAddress: isPrivateHere,
  timeoutMs: 5_000,
  ...extra,
})

/**
 * For the cases naming non-loopback addresses: should the check ever fail, the request is recorded here and
 * not sent, so the test never sends traffic off this machine.
 */
const outside: string[] = []
const loopbackOnly: NonNullable<OAuthOptions['fetch']> = (input, init) => {
  if (/^https?:\/\/127\./.test(input)) return fetch(input, init)
  outside.push(input)
  return Promise.reject(new Error('the test sends nothing off this machine'))
}

async function listToolsError(mcpUrl: string, extra: Partial<OAuthOptions> = {}): Promise<unknown> {
  const client = connect({ url: mcpUrl }, { auth: options(extra) })
  try {
    return await client.listTools().then(
      () => undefined,
      (reason: unknown) => reason,
    )
  } finally {
    await client.close()
  }
}

function asMetadata(issuer: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...overrides,
  }
}

describe('a public MCP server cannot point the OAuth client at private addresses', () => {
  it.each([
    [
      'loopback (127.0.0.1)',
      () => `${local.origin}${RESOURCE_PATH}`,
      /127\.0\.0\.1 is a loopback address/,
      {},
    ],
    [
      'link-local (cloud metadata)',
      () => 'https://169.254.169.254/latest/meta-data/',
      /a link-local address/,
      { fetch: loopbackOnly },
    ],
    [
      'private (10.x)',
      () => 'https://10.0.0.1/.well-known/oauth-protected-resource',
      /a private address/,
      { fetch: loopbackOnly },
    ],
    [
      'localhost by name',
      () => `http://localhost:${new URL(local.origin).port}${RESOURCE_PATH}`,
      /localhost/,
      {},
    ],
  ])('resource_metadata on %s is refused', async (_name, target, message, extra: Partial<OAuthOptions>) => {
    local.routes[RESOURCE_PATH] = json({
      resource: `${remote.origin}/mcp`,
      authorization_servers: [local.origin],
    })
    remote.routes['/mcp'] = challenge(target())
    outside.length = 0
    const error = await listToolsError(`${remote.origin}/mcp`, extra)
    expect(outside).toEqual([])
    expect(error).toBeInstanceOf(AuthorizationError)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).toContain('MCP server is not on a private network')
    expect(local.seen).toEqual([])
  })

  it('an authorization server on a private address is refused', async () => {
    remote.routes['/mcp'] = challenge(`${remote.origin}${RESOURCE_PATH}`)
    remote.routes[RESOURCE_PATH] = json({
      resource: `${remote.origin}/mcp`,
      authorization_servers: [local.origin],
    })
    local.routes[AS_PATH] = json(asMetadata(local.origin))
    const error = await listToolsError(`${remote.origin}/mcp`)
    expect((error as Error).message).toMatch(/127\.0\.0\.1 is a loopback address/)
    expect(remote.seen).toContain(RESOURCE_PATH)
    expect(local.seen).toEqual([])
  })

  it('registration and token endpoints on private addresses are refused', async () => {
    remote.routes['/mcp'] = challenge(`${remote.origin}${RESOURCE_PATH}`)
    remote.routes[RESOURCE_PATH] = json({
      resource: `${remote.origin}/mcp`,
      authorization_servers: [remote.origin],
    })
    remote.routes[AS_PATH] = json(
      asMetadata(remote.origin, {
        registration_endpoint: `${local.origin}/register`,
        token_endpoint: 'https://10.0.0.1/token', // never reached: registration is refused first
      }),
    )
    local.routes['/register'] = (_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"client_id":"stolen"}')
    const error = await listToolsError(`${remote.origin}/mcp`)
    expect((error as Error).message).toMatch(/127\.0\.0\.1 is a loopback address/)
    expect(remote.seen).toContain(AS_PATH)
    expect(local.seen).toEqual([])
  })
})

describe('an MCP server on a private address may use private addresses', () => {
  it('its resource_metadata and authorization server on loopback are fetched', async () => {
    localMcp.routes['/mcp'] = challenge(`${local.origin}${RESOURCE_PATH}`)
    local.routes[RESOURCE_PATH] = json({
      resource: `${localMcp.origin}/mcp`,
      authorization_servers: [local.origin],
    })
    local.routes[AS_PATH] = json(asMetadata(local.origin))
    local.routes['/register'] = (_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"client_id":"local-client"}')
    const error = await listToolsError(`${localMcp.origin}/mcp`)
    // It got as far as sending the user to authorize, which this test's callback refuses.
    expect((error as Error).message).toContain('the user should never be sent anywhere here')
    expect(local.seen).toEqual([RESOURCE_PATH, AS_PATH, '/register'])
  })
})

describe('on Node, a host name is judged by the address DNS answers when connecting', () => {
  // `localhost` is resolved by the system's resolver here; the OAuth client's own HTTP (before its
  // literal-host check) must refuse the loopback answer for a public MCP server.
  const byName = (): string => `http://localhost:${new URL(local.origin).port}/by-name`

  it('refuses a name that resolves to loopback for a public MCP server, without connecting', async () => {
    const { fetch } = oauthFetch(new URL(`${remote.origin}/mcp`), { isPrivateAddress: isPrivateHere })
    const failure = await fetch(byName(), {}).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(String(failure)).toMatch(/localhost \((127\.0\.0\.1|::1)\) is a loopback address/)
    expect(local.seen).toEqual([])
  })

  it('connects for an MCP server on loopback', async () => {
    const { fetch } = oauthFetch(new URL(`${localMcp.origin}/mcp`), { isPrivateAddress: isPrivateHere })
    const response = await fetch(byName(), {})
    await response.body?.cancel()
    expect(response.status).toBe(404)
    expect(local.seen).toEqual(['/by-name'])
  })
})

describe('isPrivateAddress (the default classification)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::1', true],
    ['169.254.169.254', true],
    ['fe80::1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['100.64.0.1', true],
    ['fd00::1', true],
    ['0.0.0.0', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:a9fe:a9fe', true],
    ['not an address', true],
    ['8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected)
  })
})
