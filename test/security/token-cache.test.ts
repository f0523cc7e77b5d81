/** Bearer tokens are verified once and trusted until their expiry, never past it, never when refused. */
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { InvalidTokenError, jwtVerifier } from '../../src/index.js'
import { cachedVerifier } from '../../src/security/auth/cache.js'
import type { AuthInfo } from '../../src/protocol/exchange.js'

const counting = (expiresAt?: number) => {
  const seen: string[] = []
  const verify = (token: string): AuthInfo => {
    seen.push(token)
    if (token.startsWith('bad')) throw new InvalidTokenError('token signature is invalid')
    return { subject: token, scopes: [], ...(expiresAt !== undefined && { expiresAt }) }
  }
  return { seen, verify }
}

describe('cachedVerifier', () => {
  it('verifies a token once and serves the same identity after that', async () => {
    let now = 1_000_000
    const { seen, verify } = counting(2_000)
    const cached = cachedVerifier(verify, { now: () => now })
    const first = await cached('alice')
    for (let i = 0; i < 5; i++) expect(await cached('alice')).toBe(first)
    expect(seen).toEqual(['alice'])
    now += 1
    await cached('bob')
    expect(seen).toEqual(['alice', 'bob'])
    expect(Object.isFrozen(first)).toBe(true)
  })

  it('checks again once the token has expired', async () => {
    let now = 1_000_000
    const { seen, verify } = counting(1_010) // exp is in seconds: 1 010 000 ms
    const cached = cachedVerifier(verify, { now: () => now })
    await cached('alice')
    now = 1_009_999
    await cached('alice')
    expect(seen).toHaveLength(1)
    now = 1_010_000
    await cached('alice')
    expect(seen).toHaveLength(2)
  })

  it('checks again after maxAgeMs even when the token lives longer', async () => {
    let now = 1_000_000
    const { seen, verify } = counting()
    const cached = cachedVerifier(verify, { now: () => now, maxAgeMs: 100 })
    await cached('alice')
    now += 99
    await cached('alice')
    now += 1
    await cached('alice')
    expect(seen).toHaveLength(2)
  })

  it('never keeps a refused token', async () => {
    const { seen, verify } = counting()
    const cached = cachedVerifier(verify)
    for (let i = 0; i < 3; i++) await expect(cached('bad-token')).rejects.toBeInstanceOf(InvalidTokenError)
    expect(seen).toHaveLength(3)
  })

  it('keeps at most maxEntries tokens', async () => {
    const { seen, verify } = counting()
    const cached = cachedVerifier(verify, { maxEntries: 2 })
    for (const token of ['a', 'b', 'c', 'a']) await cached(token)
    expect(seen).toEqual(['a', 'b', 'c', 'a'])
  })
})

describe('jwtVerifier cache', () => {
  const key = new TextEncoder().encode('a-test-secret-of-at-least-32-bytes!!')
  const token = (claims: Record<string, unknown>, expiresIn = '1h') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://issuer.example')
      .setAudience('https://mcp.example/mcp')
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(key)
  const options = { issuer: 'https://issuer.example', audience: 'https://mcp.example/mcp', key }

  it('returns the cached identity for a token seen before, and a fresh one with cache: false', async () => {
    const jwt = await token({ sub: 'alice', scope: 'read' })
    const cached = jwtVerifier(options)
    expect(await cached(jwt)).toBe(await cached(jwt))
    const uncached = jwtVerifier({ ...options, cache: false })
    const [a, b] = [await uncached(jwt), await uncached(jwt)]
    expect(a).not.toBe(b)
    expect(a).toEqual(b)
  })

  it('still refuses an expired token and a token for another audience', async () => {
    const verify = jwtVerifier({ ...options, clockToleranceSec: 0 })
    await expect(verify(await token({ sub: 'alice' }, '-1s'))).rejects.toThrow(/expired/)
    const other = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://issuer.example')
      .setAudience('https://elsewhere.example')
      .setExpirationTime('1h')
      .sign(key)
    await expect(verify(other)).rejects.toThrow(/audience/)
  })
})
