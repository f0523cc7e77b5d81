/** Turns what a handler returned into a CallToolResult, and checks it is well formed before it is sent. */
import type { CallToolResult, ContentBlock, TextContent } from '../../wire/types.js'

const RESULT = Symbol.for('toolwire.toolResult')

/** An explicit result: content and structured content together, or a deliberate `isError` result. */
export interface ToolResult {
  readonly [RESULT]: true
  readonly result: CallToolResult
}

/**
 * Marks a full `CallToolResult` (content blocks, `structuredContent`, `isError`) to be returned as it is.
 *
 * @example
 * ```ts
 * const chart = defineTool({
 *   name: 'chart',
 *   handler: () =>
 *     toolResult({ content: [{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' }] }),
 * })
 * ```
 */
export function toolResult(result: CallToolResult): ToolResult {
  return { [RESULT]: true, result }
}

export const isToolResult = (value: unknown): value is ToolResult =>
  typeof value === 'object' && value !== null && RESULT in value

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource'])
const isContentBlock = (value: unknown): value is ContentBlock =>
  typeof value === 'object' &&
  value !== null &&
  CONTENT_TYPES.has((value as { type?: unknown }).type as string)

const isCallToolResult = (value: unknown): value is CallToolResult =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as CallToolResult).content) &&
  (value as CallToolResult).content.every(isContentBlock)

export const textContent = (text: string): ContentBlock => ({ type: 'text', text })

/** A tool execution error the model can read (server/tools §Error Handling). */
export const errorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
})

/** Serialized JSON fallback for clients that read only `content` (server/tools §Structured Content). */
export function jsonText(value: unknown): TextContent {
  return { type: 'text', text: JSON.stringify(value) ?? 'null' }
}

/**
 * Normalizes a handler's return value. With an output schema the value is the structured content;
 * without one: a string is text, content blocks are content, a CallToolResult passes through,
 * and any other JSON value becomes structured content plus its JSON text.
 */
export function normalizeReturn(value: unknown, hasOutputSchema: boolean): CallToolResult {
  if (isToolResult(value)) return value.result
  if (hasOutputSchema) return { content: [], structuredContent: value }
  if (value === undefined || value === null) return { content: [] }
  if (typeof value === 'string') return { content: [textContent(value)] }
  if (isContentBlock(value)) return { content: [value] }
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value }
  if (isCallToolResult(value)) return value
  return { content: [], structuredContent: value }
}

/** Returns a reason when a content block is malformed (a server bug: never sent as if valid). */
export function contentProblem(block: unknown, index: number): string | undefined {
  if (!isContentBlock(block)) return `content[${index}] has an unknown type`
  const at = `content[${index}] (${block.type})`
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : `${at} needs a string text`
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string'
        ? undefined
        : `${at} needs string data and mimeType`
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string'
        ? undefined
        : `${at} needs uri and name`
    case 'resource': {
      const resource = block.resource as unknown as Record<string, unknown> | undefined
      if (!resource || typeof resource.uri !== 'string') return `${at} needs resource.uri`
      return typeof resource.text === 'string' || typeof resource.blob === 'string'
        ? undefined
        : `${at} needs resource.text or resource.blob`
    }
  }
}
