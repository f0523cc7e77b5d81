/** Bearer tokens are verified once and trusted until their expiry, never past it, never when refused. */
import { generateKeyPair, SignJWT } from 'jose'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type AuthOutcome, bearerAuth, InvalidTokenError, jwtVerifier } from '../../src/index.js'
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

describe('jwtVerifier cache, against tokens that must be refused', () => {
  const ISSUER = 'https://issuer.example'
  const RESOURCE = 'https://mcp.example/mcp'
  const secret = new TextEncoder().encode('another-test-secret-of-32-bytes!!!!')
  const sign = (claims: Record<string, unknown>, exp: number, key: Uint8Array = secret) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(exp)
      .sign(key)
  afterEach(() => vi.useRealTimers())

  it('refuses a cached token once the clock has passed its exp', async () => {
    // Only Date is faked: jose and the cache both read the clock through it.
    vi.useFakeTimers({ toFake: ['Date'] })
    const start = Date.UTC(2030, 0, 1)
    vi.setSystemTime(start)
    const verify = jwtVerifier({ issuer: ISSUER, audience: RESOURCE, key: secret, clockToleranceSec: 0 })
    const jwt = await sign({ sub: 'alice' }, start / 1000 + 60)
    const first = await verify(jwt)
    expect(await verify(jwt)).toBe(first) // cached
    vi.setSystemTime(start + 59_999)
    expect(await verify(jwt)).toBe(first)
    vi.setSystemTime(start + 60_000)
    await expect(verify(jwt)).rejects.toThrow(/expired/)
  })

  it('refuses a token with a wrong signature while a good token for the same subject is cached', async () => {
    const verify = jwtVerifier({ issuer: ISSUER, audience: RESOURCE, key: secret })
    const exp = Math.floor(Date.now() / 1000) + 3600
    const good = await sign({ sub: 'alice', scope: 'notes:read' }, exp)
    await verify(good)
    // The same header and claims with the signature of another key, and the good one's signature cut short.
    const forged = await sign(
      { sub: 'alice', scope: 'notes:read' },
      exp,
      new TextEncoder().encode('x'.repeat(32)),
    )
    expect(forged.split('.').slice(0, 2)).toEqual(good.split('.').slice(0, 2))
    await expect(verify(forged)).rejects.toThrow(/signature/)
    await expect(verify(good.slice(0, -2))).rejects.toBeInstanceOf(InvalidTokenError)
    // Other claims under the good token's signature: it ends like the cached token, and is still refused.
    const [header, , signature] = good.split('.')
    const claims = Buffer.from(
      JSON.stringify({ sub: 'alice', scope: 'admin', iss: ISSUER, aud: RESOURCE, exp }),
    )
    const swapped = `${header}.${claims.toString('base64url')}.${signature}`
    expect(swapped.slice(-43)).toBe(good.slice(-43))
    await expect(verify(swapped)).rejects.toThrow(/signature/)
    // A token with more rights for the same subject, signed by someone else, gets nothing either.
    const wider = await sign(
      { sub: 'alice', scope: 'notes:write' },
      exp,
      new TextEncoder().encode('y'.repeat(32)),
    )
    await expect(verify(wider)).rejects.toThrow(/signature/)
  })

  it('keeps at most maxEntries verified tokens', async () => {
    const verify = jwtVerifier({ issuer: ISSUER, audience: RESOURCE, key: secret, cache: { maxEntries: 2 } })
    const exp = Math.floor(Date.now() / 1000) + 3600
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((sub) => sign({ sub }, exp)))
    const first = await verify(a as string)
    await verify(b as string)
    const third = await verify(c as string)
    // `a` was the least recently used of three: it was dropped and is verified again (a new identity).
    const again = await verify(a as string)
    expect(again).toEqual(first)
    expect(again).not.toBe(first)
    expect(await verify(c as string)).toBe(third)
  })
})

describe('bearerAuth on a token it has seen', () => {
  const ISSUER = 'https://issuer.example'
  const RESOURCE = 'https://mcp.example/mcp'

  it('answers without a promise and hands every request the same identity (RS256)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256')
    const auth = bearerAuth({
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      jwt: { issuer: ISSUER, key: publicKey },
      requiredScopes: ['tools'],
    })
    const jwt = await new SignJWT({ sub: 'alice', scope: 'tools' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime('1h')
      .sign(privateKey)
    const request = { header: (name: string) => (name === 'authorization' ? `Bearer ${jwt}` : undefined) }
    const first = await auth.authenticate({ ...request, remoteAddress: '127.0.0.1' })
    expect(first.ok).toBe(true)
    const second = auth.authenticate({ ...request, remoteAddress: '127.0.0.1' })
    expect(second).not.toBeInstanceOf(Promise)
    const [one, two] = [first, second as AuthOutcome].map((outcome) =>
      outcome.ok ? outcome.auth : undefined,
    )
    expect(two).toBe(one)
    expect(Object.isFrozen(two)).toBe(true)
    // A bad token from the same address is still refused, with its own answer.
    const bad = await auth.authenticate({
      header: (name) => (name === 'authorization' ? `Bearer ${jwt.slice(0, -3)}` : undefined),
      remoteAddress: '127.0.0.1',
    })
    expect(bad).toMatchObject({ ok: false, status: 401 })
    // Other spellings of the same header take the full path and get the same identity.
    for (const spelled of [`bearer ${jwt}`, `  Bearer ${jwt} `, `BEARER   ${jwt}`]) {
      const outcome = await auth.authenticate({ header: () => spelled, remoteAddress: '127.0.0.1' })
      expect(outcome.ok ? outcome.auth : undefined).toBe(one)
    }
  })
})
