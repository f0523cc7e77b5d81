/**
 * The OAuth client end to end: a real authorization server (oidc-provider) and toolwire's own bearerAuth
 * resource server on real sockets. Login (the authorize step played programmatically), a call, a 403 step-up,
 * refresh before expiry, logout; then the client credentials grant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuthorizationError, connect, MemoryTokenStore, OAuthProvider } from '../src/client/index.js'
import {
  playBrowser,
  ROBOT_CLIENT,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './helpers/oidc.js'
import { startProtectedNotes, type ProtectedNotes } from './helpers/protected-notes.js'

const REDIRECT = 'http://127.0.0.1:1/callback'
let as: TestAuthorizationServer
let mcp: ProtectedNotes
let url = ''
const authorizeUrls: URL[] = []

beforeAll(async () => {
  as = await startAuthorizationServer({
    resourceScopes: 'notes:read notes:write',
    // Shorter than the client's refresh margin, so every use of a token refreshes it first.
    accessTokenTTL: 30,
    clients: [ROBOT_CLIENT],
  })
  mcp = await startProtectedNotes(as.issuer)
  url = mcp.url
})

afterAll(async () => {
  await mcp.close()
  await as.close()
})

function authorize(authorizationUrl: URL): Promise<URL> {
  authorizeUrls.push(authorizationUrl)
  return playBrowser(authorizationUrl, REDIRECT)
}

describe('authorization code flow against oidc-provider', () => {
  const store = new MemoryTokenStore()
  const provider = () => new OAuthProvider(url, { store, redirectUri: REDIRECT, authorize })

  it('logs in on the first 401 and calls a tool with a token for this resource', async () => {
    const client = connect({ url }, { auth: provider() })
    const result = await client.callTool('notes_read', {})
    expect(result.content).toEqual([{ type: 'text', text: 'notes for alice' }])
    await client.close()
    const first = authorizeUrls[0] as URL
    expect(first.searchParams.get('resource')).toBe(url)
    expect(first.searchParams.get('code_challenge_method')).toBe('S256')
    expect(first.searchParams.get('scope')?.split(' ').sort()).toEqual(['notes:read', 'offline_access'])
    const tokens = await store.getTokens(url)
    expect(tokens?.issuer).toBe(as.issuer)
    expect(tokens?.refreshToken).toBeTypeOf('string')
  })

  it('steps up on 403 insufficient_scope, keeping the scopes it had', async () => {
    const before = authorizeUrls.length
    const methods: unknown[] = []
    const recording = async (request: Request): Promise<Response> => {
      methods.push(((await request.clone().json()) as { method?: unknown }).method)
      return fetch(request)
    }
    const client = connect({ url, fetch: recording }, { auth: provider() })
    // Hidden from the notes:read token, so not listed: the call goes out only when allowed.
    await expect(client.callTool('notes_write', {})).rejects.toThrow(/notes_write: not called/)
    expect(methods).not.toContain('tools/call')
    const result = await client.callTool('notes_write', {}, { allowUnlisted: true })
    expect(result.content).toEqual([{ type: 'text', text: 'written' }])
    // The step-up changed the credential, so the client listed again: the result had a definition to meet.
    expect(methods.slice(-1)).toEqual(['tools/list'])
    await client.close()
    expect(authorizeUrls.length).toBe(before + 1)
    const stepUp = authorizeUrls.at(-1) as URL
    expect(stepUp.searchParams.get('scope')?.split(' ').sort()).toEqual([
      'notes:read',
      'notes:write',
      'offline_access',
    ])
  })

  it('refreshes a token that is about to expire instead of authorizing again', async () => {
    const before = await store.getTokens(url)
    const interactions = as.interactions()
    const client = connect({ url }, { auth: provider() })
    await client.callTool('notes_read', {})
    await client.close()
    const after = await store.getTokens(url)
    expect(after?.accessToken).not.toBe(before?.accessToken)
    expect(after?.scope?.split(' ')).toContain('notes:write')
    expect(as.interactions()).toBe(interactions)
  })

  it('logs out: the tokens are gone, and without an authorize callback the client says login is needed', async () => {
    await provider().logout()
    expect(await store.getTokens(url)).toBeUndefined()
    const client = connect({ url }, { auth: { store } })
    const failure = await client.callTool('notes_read', {}).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(AuthorizationError)
    expect((failure as AuthorizationError).loginRequired).toBe(true)
    await client.close()
  })
})

describe('client credentials grant against oidc-provider', () => {
  it('gets a token with client_secret_basic and the resource parameter', async () => {
    const store = new MemoryTokenStore()
    const client = connect(
      { url },
      {
        auth: {
          store,
          clientCredentials: { clientId: 'robot', clientSecret: 'robot-secret-value', scope: 'notes:read' },
        },
      },
    )
    const result = await client.callTool('notes_read', {})
    expect(result.isError).toBeFalsy()
    await client.close()
    const tokens = await store.getTokens(url)
    expect(tokens?.resource).toBe(url)
    expect(tokens?.refreshToken).toBeUndefined()
  })
})
