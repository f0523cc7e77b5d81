/**
 * Client addresses as limits count them. Here rather than in the security layer because transports (listen
 * stream and connection caps) and handles count by address too, and both sit beside or below security.
 */

/**
 * The network a client address stands for. An IPv6 host usually owns a whole /64 and can rotate through
 * it freely, so per-address limits key IPv6 by its /64 prefix; IPv4 (also IPv4-mapped IPv6) by address.
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address
  const plain = address.replace(/%.*$/, '').toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain)
  if (mapped) return mapped[1] as string
  const [head = '', tail] = plain.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
