/**
 * A tool's output pipeline: what the handler returned, shaped into a result (result.ts), checked against the
 * tool's `outputSchema`, cleaned by the server's output guard, given its JSON text copy, and capped.
 */
import { CLEANED } from '../../protocol/encode.js'
import { markRefused } from '../../protocol/telemetry.js'
import { contentAnnotationProblem } from '../../wire/annotations.js'
import { internalError } from '../../wire/errors.js'
import type { CallToolResult } from '../../wire/types.js'
import type { ValidationOutcome } from '../../schema/json-schema.js'
import type { ToolCallOptions } from './call.js'
import type { CompiledTool } from './compile.js'
import { contentProblem, errorResult, jsonText, normalizeReturn } from './result.js'
import { addedBytes } from './result-size.js'

/**
 * What the server's output guard does to a result before it is sent: `clean` returns it with every string
 * sanitised and redacted plus its encoded size in bytes, `size` measures a value added afterwards, and `fit`
 * applies the size cap. A refusal becomes an `isError` result; `log` goes to the operator only.
 */
export interface ResultGuard {
  clean(
    result: CallToolResult,
  ): { result: CallToolResult; bytes: number } | { refuse: string; log?: string | undefined }
  size(value: unknown): number
  /**
   * For a result of structured content alone, with `text` its JSON: the structured value's encoded size and
   * the text's as a JSON string, or undefined when something in the value is to be cleaned (then `clean`
   * walks it). Absent when that takes more than a scan (sanitising off, secrets to redact).
   */
  scanText?(text: string): { valueBytes: number; textBytes: number } | undefined
  fit(result: CallToolResult, bytes: number): { result: CallToolResult } | { refuse: string; log?: string }
}

/**
 * The output pipeline: handler value -> parse with the outputSchema (the parsed value is what is sent:
 * defaults applied, unknown keys dropped) -> clean the structure (guard) -> validate what will be sent ->
 * JSON text copy -> size cap. Output that breaks the tool's own contract is a server bug, never sent as
 * valid. Module-level helpers rather than closures: this runs on every call.
 */
export function finishResult(
  tool: CompiledTool,
  returned: unknown,
  options: ToolCallOptions,
): CallToolResult | Promise<CallToolResult> {
  const result = normalizeReturn(returned, tool.output !== undefined)
  if (!Array.isArray(result.content)) invalidResult(tool, options, 'content must be an array')
  const content = result.content
  for (let index = 0; index < content.length; index++) {
    const problem = index in content ? contentProblem(content[index], index) : undefined // holes: as forEach
    if (problem) invalidResult(tool, options, problem)
  }
  if (options.embeddedResource && content.some(isEmbeddedResource)) options.embeddedResource(tool)
  // The handler returned a bare value that normalizeReturn wrapped as `{content: [], structuredContent}`.
  const bare = returned !== undefined && result !== returned && result.structuredContent === returned
  if (result.isError || !tool.output) return guardResult(tool, options, result, bare)
  if (result.structuredContent === undefined)
    invalidResult(tool, options, 'structuredContent is required by outputSchema')
  const outcome = tool.output.validateAsync(result.structuredContent)
  return outcome instanceof Promise
    ? outcome.then((settled) => settleOutput(tool, options, result, settled, bare))
    : settleOutput(tool, options, result, outcome, bare)
}

const isEmbeddedResource = (block: unknown): boolean => (block as { type?: unknown }).type === 'resource'

function invalidResult(tool: CompiledTool, options: ToolCallOptions, problem: string): never {
  const ref = options.report(`tool ${tool.name} returned an invalid result: ${problem}`, new Error(problem))
  throw internalError(`Internal error: tool ${tool.name} produced an invalid result (ref ${ref})`, {
    correlationId: ref,
  })
}

function settleOutput(
  tool: CompiledTool,
  options: ToolCallOptions,
  result: CallToolResult,
  outcome: ValidationOutcome,
  bare: boolean,
): CallToolResult {
  if (!outcome.ok)
    invalidResult(tool, options, `structuredContent breaks outputSchema: ${outcome.issues.join('; ')}`)
  const parsed = outcome.value as Record<string, unknown>
  return guardResult(
    tool,
    options,
    parsed === result.structuredContent ? result : { ...result, structuredContent: parsed },
    bare,
  )
}

function refusal(tool: CompiledTool, options: ToolCallOptions, refuse: string, log?: string): CallToolResult {
  if (log === undefined) return markRefused(errorResult(`Tool ${tool.name} ${refuse}`), 'output')
  const ref = options.report(`tool ${tool.name} output refused: ${log}`, new Error(log))
  return markRefused(errorResult(`Tool ${tool.name} ${refuse} (ref ${ref})`), 'output')
}

/** The bytes of a text block's JSON besides its text's own (quotes included there): `{"type":"text","text":}`. */
export const TEXT_BLOCK_BYTES = '{"type":"text","text":}'.length

/** The bytes of `{"content":[],"structuredContent":}` around a bare result's text block and value. */
const BARE_RESULT_BYTES = '{"content":[],"structuredContent":}'.length

/**
 * Clean, check what will be sent, add the JSON text copy, cap. `bare`: the result is normalizeReturn's
 * `{content: [], structuredContent}`, those two keys and nothing else.
 */
export function guardResult(
  tool: CompiledTool,
  options: ToolCallOptions,
  result: CallToolResult,
  bare = false,
): CallToolResult {
  const guard = options.guardResult
  if (!guard) {
    checkAnnotations(tool, options, result.content)
    return withTextCopy(result)
  }
  if (bare && guard.scanText) {
    // `{content: [], structuredContent}` as normalizeReturn made it: the text copy is made first, and its
    // scan answers for the value too. The result sent is the same one the walk below would make.
    const structured = result.structuredContent
    const text = JSON.stringify(structured) ?? 'null'
    const sizes = guard.scanText(text)
    if (sizes) {
      // Made whole as `complete()` in call.ts would make it, so it is not copied again there.
      const final = {
        resultType: 'complete',
        content: [{ type: 'text', text }],
        structuredContent: structured,
        [CLEANED]: true,
      } as CallToolResult
      const bytes = BARE_RESULT_BYTES + sizes.valueBytes + TEXT_BLOCK_BYTES + sizes.textBytes
      const fitted = guard.fit(final, bytes + addedBytes(final, options.serverInfo))
      return 'refuse' in fitted ? refusal(tool, options, fitted.refuse, fitted.log) : fitted.result
    }
  }
  const cleaned = guard.clean(result)
  if ('refuse' in cleaned) return refusal(tool, options, cleaned.refuse, cleaned.log)
  const sent = cleaned.result
  checkAnnotations(tool, options, sent.content)
  const structured = sent.structuredContent
  // Cleaning changed the structured value: check the changed value, since that is what the client checks.
  if (tool.output && !sent.isError && structured !== result.structuredContent) {
    const outcome = tool.output.checkPublished(structured)
    if (!outcome.ok) {
      return refusal(
        tool,
        options,
        'returned output that no longer matches its outputSchema once unsafe characters and secrets were removed',
        outcome.issues.join('; '),
      )
    }
  }
  let bytes = cleaned.bytes
  let final = sent
  if (structured !== undefined && sent.content.length === 0) {
    const copy = jsonText(structured)
    final = { ...sent, content: [copy] }
    // `{"type":"text","text":…}` around the text: the same count as measuring the block, without its walk.
    bytes += TEXT_BLOCK_BYTES + guard.size(copy.text)
  }
  const fitted = guard.fit(final, bytes + addedBytes(final, options.serverInfo))
  return 'refuse' in fitted ? refusal(tool, options, fitted.refuse, fitted.log) : fitted.result
}

/**
 * Content annotations as they will be sent (after sanitising, which may strip escapes from an audience role):
 * an audience other than user/assistant, a priority outside [0, 1] or a lastModified that is not ISO 8601 is
 * a server bug, never sent as valid (schema `Annotations`).
 */
function checkAnnotations(tool: CompiledTool, options: ToolCallOptions, content: readonly unknown[]): void {
  const problem = contentAnnotationProblem(content)
  if (problem) invalidResult(tool, options, problem)
}

/** Clients that read only `content` still see structured output, as JSON text (server/tools §Structured Content). */
function withTextCopy(result: CallToolResult): CallToolResult {
  if (result.structuredContent !== undefined && result.content.length === 0) {
    return { ...result, content: [jsonText(result.structuredContent)] }
  }
  return result
}
