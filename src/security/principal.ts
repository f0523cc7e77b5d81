/** Who a request counts against, for limits: the token's subject, else the client address, else the transport. */
import type { RequestContext } from '../protocol/context.js'
import { addressKey } from '../protocol/address.js'
import { authPrincipal } from '../protocol/exchange.js'

export { addressKey }

export type PrincipalOf = (ctx: RequestContext) => string

export const defaultPrincipal: PrincipalOf = (ctx) => {
  if (ctx.auth) return authPrincipal(ctx.auth)
  const address = ctx.exchange.remoteAddress
  return address ? `ip:${addressKey(address)}` : ctx.exchange.transport
}
