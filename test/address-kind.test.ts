/**
 * The words refusals use for an address (the document loader, the OpenAPI server check and the OAuth client's
 * fetch all say "<host> is <kind>"): an article that fits, and range names as people write them.
 */
import { describe, expect, it } from 'vitest'
import { addressKind } from '../src/wire/private-address.js'

describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['169.254.169.254', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fd00::1', 'a unique-local address'],
    ['10.1.2.3', 'a private address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['8.8.8.8', 'a public address'],
    ['not-an-ip', 'not an IP address'],
  ])('%s is %s', (address, words) => {
    expect(addressKind(address)).toBe(words)
  })
})
