/**
 * `completion/complete` passed through: a mirrored prompt argument or template variable completes by asking
 * the upstream (server/utilities/completion), with the upstream's names and the arguments given so far. The
 * upstream's suggestions are untrusted text: only strings are kept, control characters stripped, and at
 * most 100 of them (the most one answer may carry, server/utilities/completion §Completion Results).
 */
import type { Completer } from '../features/prompts/define.js'
import { stripControls } from '../security/sanitize.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { Upstream } from './upstream.js'

const MAX_VALUES = 100

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }

export function upstreamCompleter(upstream: Upstream, ref: CompletionRef, argument: string): Completer {
  return async (value, { arguments: given, ctx }) => {
    const params = { ref, argument: { name: argument, value }, context: { arguments: given } }
    const result = await upstream.useFor(ctx, (client) =>
      client.request('completion/complete', params, { signal: ctx.signal }),
    )
    const completion = isRecord(result.completion) ? result.completion : {}
    const values = Array.isArray(completion.values) ? completion.values : []
    return values
      .filter((item): item is string => typeof item === 'string')
      .slice(0, MAX_VALUES)
      .map((item) => stripControls(item))
  }
}
