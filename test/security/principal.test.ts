import { describe, expect, it } from 'vitest'
import { addressKey } from '../../src/security/principal.js'
import { ownerKey, principalOf, samePrincipal } from '../../src/protocol/principal.js'

describe('client address keys for anonymous limits', () => {
  it('keys IPv4 and IPv4-mapped IPv6 by address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7')
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  it('keys IPv6 by its /64, however the address is written', () => {
    const key = '2001:db8:0:1::/64'
    expect(addressKey('2001:db8:0:1::1')).toBe(key)
    expect(addressKey('2001:0db8:0000:0001:ffff:1:2:3')).toBe(key)
    expect(addressKey('2001:DB8:0:1:a::b%eth0')).toBe(key)
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key)
    expect(addressKey('::1')).toBe('0:0:0:0::/64')
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64')
  })
})

describe('principals made per request', () => {
  it("gives a caller's requests one principal and one owner key, by what identifies the caller", () => {
    const first = principalOf(undefined, '203.0.113.7', 'http')
    const again = principalOf(undefined, '203.0.113.7', 'http')
    expect(again).toBe(first)
    expect(ownerKey(again)).toBe(ownerKey(first))
    expect(first).toEqual({ kind: 'anonymous', id: '203.0.113.7' })
    expect(Object.isFrozen(first)).toBe(true)
    // Two addresses of one IPv6 /64 are one caller: equal principals and one key, whichever object.
    const a = principalOf(undefined, '2001:db8:0:1::1', 'http')
    const b = principalOf(undefined, '2001:db8:0:1::2', 'http')
    expect(samePrincipal(a, b)).toBe(true)
    expect(ownerKey(a)).toBe(ownerKey(b))
    expect(ownerKey(principalOf(undefined, undefined, 'stdio'))).toBe('anon:stdio')
  })

  it('never lets a user, a client and an address of the same name share a key', () => {
    const user = principalOf({ subject: '203.0.113.7', scopes: [] }, '203.0.113.7', 'http')
    const client = principalOf(
      { subject: '203.0.113.7', subjectKind: 'client', scopes: [] },
      undefined,
      'http',
    )
    const anonymous = principalOf(undefined, '203.0.113.7', 'http')
    const stdio = principalOf(undefined, undefined, '203.0.113.7')
    expect(new Set([user, client, anonymous].map(ownerKey)).size).toBe(3)
    expect([user.kind, client.kind, anonymous.kind, stdio.kind]).toEqual([
      'user',
      'client',
      'anonymous',
      'anonymous',
    ])
    expect(ownerKey(user)).toBe(ownerKey({ kind: 'user', id: '203.0.113.7' }))
    expect(ownerKey(client)).toBe(ownerKey({ kind: 'client', id: '203.0.113.7' }))
    expect(principalOf({ subject: 'ann', scopes: [] }, undefined, 'http')).toBe(
      principalOf({ subject: 'ann', subjectKind: 'user', scopes: [] }, '198.51.100.1', 'http'),
    )
  })

  it('holds a bounded number of them: a caller rotating addresses starts the cache afresh', () => {
    const first = principalOf(undefined, '198.51.100.200', 'http')
    for (let n = 0; n < 10_001; n++)
      principalOf(undefined, `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, 'http')
    const later = principalOf(undefined, '198.51.100.200', 'http')
    // A new object once forgotten, but still the same caller with the same key.
    expect(later).not.toBe(first)
    expect(samePrincipal(later, first)).toBe(true)
    expect(ownerKey(later)).toBe(ownerKey(first))
  })
})
