/**
 * The client capabilities a proxy relays to its downstream caller (client/sampling, client/elicitation,
 * client/roots), as a caller declared them: the part of a caller's declaration the proxy passes upstream, and
 * the key that groups callers who declared the same. Sub-capabilities are kept as flags only (their values
 * are empty objects in the spec), so a caller cannot make a key of unbounded size: there are at most 40.
 */
import type { ClientCapabilities } from '../wire/types.js'
import { isRecord } from '../wire/jsonrpc.js'

/** Every question a proxy can relay: what its shared upstream connection declares. */
export const RELAYED_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: {},
}

/**
 * What of `declared` the proxy declares upstream for that caller. An `elicitation` object naming neither
 * mode means form mode (client/elicitation §Capabilities). `roots.listChanged` is not passed on: the proxy
 * does not relay `notifications/roots/list_changed`, so it must not promise them.
 */
export function relayedCapabilities(declared: ClientCapabilities): ClientCapabilities {
  const out: ClientCapabilities = {}
  const { sampling, elicitation, roots } = declared
  if (isRecord(sampling)) {
    out.sampling = {
      ...(isRecord(sampling.context) && { context: {} }),
      ...(isRecord(sampling.tools) && { tools: {} }),
    }
  }
  if (isRecord(elicitation)) {
    const url = isRecord(elicitation.url)
    const form = isRecord(elicitation.form) || !url
    out.elicitation = { ...(form && { form: {} }), ...(url && { url: {} }) }
  }
  if (isRecord(roots)) out.roots = {}
  return out
}

/** A short key naming the relayed capabilities: callers with the same key can share an upstream connection. */
export function capabilityKey(relayed: ClientCapabilities): string {
  const flags: string[] = []
  if (relayed.sampling) {
    flags.push('sampling')
    if (relayed.sampling.context) flags.push('sampling.context')
    if (relayed.sampling.tools) flags.push('sampling.tools')
  }
  if (relayed.elicitation?.form) flags.push('elicitation.form')
  if (relayed.elicitation?.url) flags.push('elicitation.url')
  if (relayed.roots) flags.push('roots')
  return flags.join(',')
}

/** The capabilities a proxy's shared connection declares: every relayed one, over the spec's own. */
export function sharedCapabilities(configured: ClientCapabilities | undefined): ClientCapabilities {
  return { ...RELAYED_CAPABILITIES, ...configured }
}

/**
 * The capabilities one group's connection declares: the caller's relayed ones, and of the spec's own only
 * what the proxy does not relay (extensions, experimental).
 */
export function groupCapabilities(
  relayed: ClientCapabilities,
  configured: ClientCapabilities | undefined,
): ClientCapabilities {
  const own: ClientCapabilities = { ...configured }
  delete own.sampling
  delete own.elicitation
  delete own.roots
  return { ...own, ...relayed }
}
