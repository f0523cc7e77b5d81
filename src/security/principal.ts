/**
 * Who a request counts against, for limits. By default the request's own principal (`ctx.principal`: the
 * token's user or client, else the address bucket, else the transport); `security.principal` may choose
 * another one (e.g. the address a trusted proxy forwarded), still as a `Principal`, never a bare string.
 */
import type { RequestContext } from '../protocol/context.js'
import { addressKey } from '../protocol/address.js'
import type { OwnerKey, Principal } from '../protocol/principal.js'

export { addressKey }

export type PrincipalOf = (ctx: RequestContext) => Principal

/** The owner key a request's limits count against, worked out once per request. */
export type OwnerOf = (ctx: RequestContext) => OwnerKey
