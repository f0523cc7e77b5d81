/**
 * A `lookup` for node's sockets that resolves as usual and then lets a check refuse the answer before any
 * connection is made. Used by the OAuth client and the document loader on Node so a host name that resolves
 * to a private address is judged by the address it is actually connected to (security best practices
 * §Server-Side Request Forgery (SSRF): a name checked once and resolved again later could answer
 * differently, DNS rebinding).
 */
import type * as NodeDns from 'node:dns'
import type * as NodeNet from 'node:net'

/** Returns why `address` (the answer for `host`) must not be connected to, or undefined to allow it. */
export type AddressCheck = (address: string, host: string) => Promise<string | undefined> | string | undefined

type LookupAnswer = string | NodeDns.LookupAddress[]

export function checkedLookup(lookup: typeof NodeDns.lookup, check: AddressCheck): NodeNet.LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as (
      error: NodeJS.ErrnoException | null,
      address?: LookupAnswer,
      family?: number,
    ) => void
    lookup(
      hostname,
      { ...options },
      (error: NodeJS.ErrnoException | null, address: LookupAnswer, family?: number) => {
        if (error) return done(error)
        const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address)
        // Every answer counts: one private address among public ones is refused as well.
        Promise.all(addresses.map((candidate) => check(candidate, hostname))).then(
          (refusals) => {
            const refusal = refusals.find((reason) => reason !== undefined)
            if (refusal === undefined) return done(null, address, family)
            done(Object.assign(new Error(refusal), { code: 'EREFUSEDADDRESS', hostname }))
          },
          (failure: unknown) => done(failure instanceof Error ? failure : new Error(String(failure))),
        )
      },
    )
  }
}
