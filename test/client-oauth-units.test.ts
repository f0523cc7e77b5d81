/** The OAuth client's small parts: reading Bearer challenges, and the CLI's credentials file. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseBearerChallenge } from '../src/client/auth/challenge.js'
import { defaultCredentialsPath, FileTokenStore } from '../src/cli/auth/file-store.js'

describe('parseBearerChallenge', () => {
  it('reads quoted and bare parameters, commas and escapes inside quotes', () => {
    const header =
      'Bearer error="insufficient_scope", scope="files:read files:write", ' +
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", ' +
      'error_description="a \\"quoted\\", comma"'
    expect(parseBearerChallenge(header)).toEqual({
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
    })
    expect(parseBearerChallenge('Bearer error=invalid_token')).toEqual({ error: 'invalid_token' })
  })

  it('finds the Bearer challenge among others, stops at the next scheme, and notes a DPoP offer', () => {
    expect(
      parseBearerChallenge('DPoP algs="ES256", Bearer scope="a", Basic realm="other", scope="ignored"'),
    ).toEqual({ scope: 'a', dpop: true })
    expect(parseBearerChallenge('DPoP error="use_dpop_nonce", algs="ES256"')).toEqual({
      error: 'use_dpop_nonce',
      dpop: true,
    })
  })

  it('has nothing to say without a Bearer challenge', () => {
    expect(parseBearerChallenge(null)).toBeUndefined()
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined()
    expect(parseBearerChallenge('Bearer')).toEqual({})
  })
})

describe('FileTokenStore', () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolwire-store-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('keeps tokens per resource and clients per issuer in a 0600 file inside a 0700 folder', async () => {
    const path = join(folder, 'nested', 'credentials.json')
    const store = new FileTokenStore(path)
    const tokens = { accessToken: 'a', tokenType: 'Bearer', issuer: 'https://as', resource: 'https://r/mcp' }
    await Promise.all([
      store.setTokens('https://r/mcp', tokens),
      store.setClient('https://as', { clientId: 'c', tokenEndpointAuthMethod: 'none', issuer: 'https://as' }),
    ])
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(folder, 'nested')).mode & 0o777).toBe(0o700)
    const again = new FileTokenStore(path)
    expect(await again.getTokens('https://r/mcp')).toEqual(tokens)
    expect((await again.getClient('https://as'))?.clientId).toBe('c')
    expect(await again.getTokens('https://other/mcp')).toBeUndefined()
    await again.deleteTokens('https://r/mcp')
    expect(await store.resources()).toEqual([])
  })

  it('says which file is broken instead of overwriting it', async () => {
    const path = join(folder, 'broken.json')
    writeFileSync(path, '{not json')
    await expect(new FileTokenStore(path).getTokens('x')).rejects.toThrow(/broken\.json is not valid JSON/)
  })

  it('lives in TOOLWIRE_CONFIG_DIR, else XDG_CONFIG_HOME/toolwire', () => {
    expect(defaultCredentialsPath({ TOOLWIRE_CONFIG_DIR: '/c' })).toBe('/c/credentials.json')
    expect(defaultCredentialsPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/toolwire/credentials.json')
  })
})
