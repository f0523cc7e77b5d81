import { describe, expect, it } from 'vitest'
import { addressKey } from '../../src/security/principal.js'

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
