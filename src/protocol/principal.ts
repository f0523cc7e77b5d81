/**
 * Who a request acts for, as one value: a user (`sub`), a client acting for itself (`client_id`), or an
 * anonymous caller known only by its network. Everything a caller owns (handles, tasks, sessions, listen
 * streams, rate-limit counts) is filed under `ownerKey(principal)`, a branded string only this module makes,
 * so no store, limit or handle can be keyed by a bare `subject` or `client_id` and let a client named
 * "alice" act as the user "alice" (basic/security_best_practices §Session Hijacking: bind state to the user).
 */
import { addressKey } from './address.js'
import type { AuthInfo } from './exchange.js'

declare const OWNER_KEY: unique symbol

/** `user:<sub>`, `client:<client_id>` or `anon:<address bucket>`; made only by `ownerKey`. */
export type OwnerKey = string & { readonly [OWNER_KEY]: true }

export type PrincipalKind = 'user' | 'client' | 'anonymous'

export interface Principal {
  readonly kind: PrincipalKind
  /**
   * The token's subject for `user` and `client`; for `anonymous` the caller's address bucket (an IPv4
   * address, an IPv6 /64 such as `2001:db8:1:2::/64`) or, with no address at all, the transport (`stdio`).
   */
  readonly id: string
}

/**
 * Principals made here, by what they were made from: a caller's requests get the same frozen object, so its
 * owner key is made once (`KEYS`) and not rebuilt, then hashed again, per request by every limit that asks.
 * Identity is only a cache: two principals of one caller still compare equal (`samePrincipal`) and share a
 * key. Each map holds at most `MAX_INTERNED` and starts afresh when full, so a caller rotating addresses or
 * tokens can make it hold no more than that.
 */
const MAX_INTERNED = 10_000

/** A principal with its owner key, made together once. */
export interface KeyedPrincipal {
  readonly principal: Principal
  readonly key: OwnerKey
}

const users = new Map<string, KeyedPrincipal>()
const clients = new Map<string, KeyedPrincipal>()
/** Anonymous callers by the address as the socket gave it (before the IPv6 /64 is taken), or by transport. */
const addresses = new Map<string, KeyedPrincipal>()
const transports = new Map<string, KeyedPrincipal>()
const KEYS = new WeakMap<Principal, OwnerKey>()

/** The interned principal `by` stands for; `id` undefined: `by` is an address, and the id its bucket. */
function interned(
  known: Map<string, KeyedPrincipal>,
  by: string,
  kind: PrincipalKind,
  id: string | undefined,
): KeyedPrincipal {
  let entry = known.get(by)
  if (entry === undefined) {
    if (known.size >= MAX_INTERNED) known.clear()
    const principal: Principal = Object.freeze({ kind, id: id ?? addressKey(by) })
    const key = keyOf(principal)
    KEYS.set(principal, key)
    entry = { principal, key }
    known.set(by, entry)
  }
  return entry
}

/** The principal of a request: its verified identity, else its address bucket, else its transport. */
export function principalOf(
  auth: AuthInfo | undefined,
  remoteAddress: string | undefined,
  transport: string,
): Principal {
  return keyedPrincipalOf(auth, remoteAddress, transport).principal
}

/**
 * `principalOf` with the principal's owner key: a request's context asks for both at once, which saves
 * looking the key up again (`ownerKey` finds it in a WeakMap, about 230 instructions a request).
 */
export function keyedPrincipalOf(
  auth: AuthInfo | undefined,
  remoteAddress: string | undefined,
  transport: string,
): KeyedPrincipal {
  if (auth) {
    const kind = auth.subjectKind ?? 'user'
    if (kind === 'user') return interned(users, auth.subject, kind, auth.subject)
    if (kind === 'client') return interned(clients, auth.subject, kind, auth.subject)
    const principal: Principal = Object.freeze({ kind, id: auth.subject })
    return { principal, key: keyOf(principal) }
  }
  if (remoteAddress === undefined || remoteAddress === '')
    return interned(transports, transport, 'anonymous', transport)
  return interned(addresses, remoteAddress, 'anonymous', undefined)
}

const PREFIX: Record<PrincipalKind, string> = { user: 'user', client: 'client', anonymous: 'anon' }

const keyOf = (principal: Principal): OwnerKey => `${PREFIX[principal.kind]}:${principal.id}` as OwnerKey

/**
 * The key everything the principal owns is filed under. The kind comes first and an id is never split,
 * so two different principals never share a key, whatever their ids contain.
 *
 * @example
 * ```ts
 * const owner = ownerKey({ kind: 'user', id: 'user-42' })
 * const task = await taskStore.get(taskId, owner)
 * ```
 */
export function ownerKey(principal: Principal): OwnerKey {
  // A principal made here has its key already: the same string, hashed once, for all its requests.
  return KEYS.get(principal) ?? keyOf(principal)
}

/** Whether two principals are the same caller. */
export const samePrincipal = (a: Principal, b: Principal): boolean => a.kind === b.kind && a.id === b.id

/** Reads back a principal stored as plain data (a task record, a sealed session token); undefined if malformed. */
export function parsePrincipal(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { kind, id } = value as Record<string, unknown>
  if ((kind !== 'user' && kind !== 'client' && kind !== 'anonymous') || typeof id !== 'string')
    return undefined
  return Object.freeze({ kind, id })
}

/**
 * The owner key of an authenticated caller: `user:<sub>` or `client:<client_id>`.
 *
 * @example
 * ```ts
 * const owner = authPrincipal({ subject: 'user-42', scopes: ['notes:read'] })
 * await taskStore.list(owner)
 * ```
 */
export const authPrincipal = (auth: AuthInfo): OwnerKey => ownerKey(principalOf(auth, undefined, ''))

/** Reads back an owner key this module made and the server sealed (a session token); undefined otherwise. */
export function parseOwnerKey(value: unknown): OwnerKey | undefined {
  return typeof value === 'string' && /^(user|client|anon):/.test(value) ? (value as OwnerKey) : undefined
}
