/**
 * Which addresses something read from outside may not send toolwire to. A remote MCP server's OAuth metadata
 * names the URLs the client fetches (`resource_metadata`, authorization servers, their endpoints), and an
 * OpenAPI document names the URL it is loaded from and the URLs its `$ref`s point at; either could otherwise
 * make the user's machine request its own loopback services, the cloud metadata endpoint (169.254.169.254)
 * or hosts of the local network (security best practices §Server-Side Request Forgery (SSRF): block
 * private address ranges, also after redirects). The OAuth client and the document loader
 * (document-loader.ts) share this one test.
 */
import ipaddr from 'ipaddr.js'

/** Decides whether an IP address (as text, IPv4 or IPv6) is loopback, link-local, private or otherwise not public. */
export type PrivateAddressTest = (address: string) => boolean

/**
 * The default test: only public unicast is public. Loopback, link-local, RFC 1918, carrier-grade NAT,
 * unique-local, unspecified, multicast, reserved and documentation ranges are not, and an IPv4-mapped IPv6
 * address is judged as the IPv4 address it carries.
 *
 * @example
 * ```ts
 * isPrivateAddress('10.0.0.7') // true
 * isPrivateAddress('93.184.215.14') // false
 * ```
 */
export const isPrivateAddress: PrivateAddressTest = (address) => {
  if (!ipaddr.isValid(address)) return true
  return ipaddr.process(address).range() !== 'unicast'
}

/**
 * The address a URL's host names without asking DNS: an IP literal, or loopback for `localhost` and its
 * subdomains (RFC 6761 §6.3). Undefined for any other name.
 */
export function literalAddress(hostname: string): string | undefined {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  const lower = host.toLowerCase().replace(/\.$/, '')
  if (lower === 'localhost' || lower.endsWith('.localhost')) return '127.0.0.1'
  return ipaddr.isValid(host) ? host : undefined
}

/**
 * ipaddr.js range names as words for messages, with their article ("linkLocal" reads "a link-local"; "a unique"
 * because of how it sounds, so the article is written out rather than guessed from the first letter).
 */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  unicast: 'a public',
  unspecified: 'an unspecified',
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique-local',
  carrierGradeNat: 'a carrier-grade NAT',
  ipv4Mapped: 'an IPv4-mapped',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'an IPv4-embedded',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  amt: 'an AMT',
  as112: 'an AS112',
  as112v6: 'an AS112',
  orchid2: 'an ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID',
}

/** What a refused address is, for messages: "a loopback address", "an unspecified address", "a link-local address". */
export function addressKind(address: string): string {
  if (!ipaddr.isValid(address)) return 'not an IP address'
  const range = ipaddr.process(address).range()
  return `${RANGE_WORDS[range] ?? `a ${range}`} address`
}
