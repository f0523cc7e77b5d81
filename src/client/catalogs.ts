/**
 * Shapes of the prompts and resources a server offers (server/prompts and server/resources in the
 * specification), checked just enough that callers can rely on the fields they read.
 */
import type { ContentBlock, ResourceContents } from '../wire/types.js'
import { annotationProblems } from '../wire/annotations.js'
import { InvalidResponseError } from './errors.js'

export interface ResourceInfo {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
}

export interface ResourceTemplateInfo {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
}

export interface ReadResourceResult {
  readonly contents: ResourceContents[]
}

export interface PromptArgumentInfo {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly required?: boolean
}

export interface PromptInfo {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly arguments?: PromptArgumentInfo[]
}

export interface PromptMessage {
  readonly role: 'user' | 'assistant'
  readonly content: ContentBlock
}

export interface GetPromptResult {
  readonly description?: string
  readonly messages: PromptMessage[]
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The items of one list page, each an object with a string `key` (`name`, `uri` …). */
export function pageItems<T>(
  method: string,
  result: Record<string, unknown>,
  field: string,
  key: string,
): T[] {
  const items = result[field]
  if (!Array.isArray(items) || !items.every((item) => isObject(item) && typeof item[key] === 'string')) {
    throw new InvalidResponseError(`${method}: the result has no valid ${field} array`)
  }
  return items as T[]
}

export function checkReadResult(result: Record<string, unknown>): ReadResourceResult {
  const contents = result.contents
  if (!Array.isArray(contents) || !contents.every((c) => isObject(c) && typeof c.uri === 'string')) {
    throw new InvalidResponseError('resources/read: the result has no valid contents array')
  }
  return result as unknown as ReadResourceResult
}

export function checkPromptResult(result: Record<string, unknown>): GetPromptResult {
  const messages = result.messages
  if (!Array.isArray(messages) || !messages.every((m) => isObject(m) && isObject(m.content))) {
    throw new InvalidResponseError('prompts/get: the result has no valid messages array')
  }
  messages.forEach((message: { content: { annotations?: unknown } }, index) => {
    const problems = annotationProblems(message.content.annotations, `messages[${index}].content.annotations`)
    if (problems.length > 0) throw new InvalidResponseError(`prompts/get: ${problems.join('; ')}`)
  })
  return result as unknown as GetPromptResult
}
