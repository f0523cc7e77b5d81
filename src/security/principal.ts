/** Who a request counts against, for limits: the token's subject, else the client address, else the transport. */
import type { RequestContext } from '../protocol/context.js'

export type PrincipalOf = (ctx: RequestContext) => string

export const defaultPrincipal: PrincipalOf = (ctx) => {
  if (ctx.auth) return `sub:${ctx.auth.subject}`
  const address = ctx.exchange.remoteAddress
  return address ? `ip:${address}` : ctx.exchange.transport
}
