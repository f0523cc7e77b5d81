/**
 * Reading an OpenAPI document: a parsed object, a file (JSON or YAML) or an http(s) URL, with every `$ref`
 * into another file or URL brought into the one document by @apidevtools/swagger-parser's `bundle` (local
 * `$ref`s stay, so recursive schemas stay finite). Swagger 2.0, OpenAPI 3.0 and 3.1 are told apart here.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import { OpenAPIError } from './errors.js'

export type OpenAPIVersion = '2.0' | '3.0' | '3.1'

/** A JSON object of the document, read without trusting its shape. */
export type Node = Record<string, unknown>

export interface LoadedDocument {
  readonly document: Node
  readonly version: OpenAPIVersion
  /** Where the document came from, for relative `servers` URLs; undefined for an object or a file. */
  readonly url: URL | undefined
}

/** How long fetching the document, or a file it references over http(s), may take. */
const FETCH_TIMEOUT_MS = 15_000

export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isHttpUrl = (value: string): boolean => /^https?:\/\//i.test(value)

export async function loadDocument(source: string | URL | object): Promise<LoadedDocument> {
  const location = source instanceof URL ? source.href : source
  // bundle works on the object it is given: a caller's object is copied first, never changed.
  const input = typeof location === 'string' ? location : structuredClone(location)
  const options = { resolve: { http: { timeout: FETCH_TIMEOUT_MS } } }
  type Input = Parameters<typeof SwaggerParser.parse>[0]
  let bundled: unknown
  try {
    bundled = await SwaggerParser.parse(input as Input, options)
    // Bundling walks every $ref of the document (seconds for one of 10 MB); only references into other
    // files need it, local ones are followed where they are used (schema.ts).
    if (hasExternalRef(bundled)) bundled = await SwaggerParser.bundle(input as Input, options)
  } catch (error) {
    throw new OpenAPIError([{ operation: 'document', reason: reasonOf(error) }], { cause: error })
  }
  if (!isNode(bundled)) throw new OpenAPIError([{ operation: 'document', reason: 'is not an object' }])
  const url = typeof location === 'string' && isHttpUrl(location) ? new URL(location) : undefined
  return { document: bundled, version: versionOf(bundled), url }
}

function versionOf(document: Node): OpenAPIVersion {
  if (document.swagger === '2.0') return '2.0'
  const declared = document.openapi
  if (typeof declared === 'string' && /^3\.0\.\d+/.test(declared)) return '3.0'
  if (typeof declared === 'string' && /^3\.[12]\.\d+/.test(declared)) return '3.1'
  const said = JSON.stringify(declared ?? document.swagger ?? null)
  throw new OpenAPIError([
    {
      operation: 'document',
      reason: `is not Swagger 2.0 nor OpenAPI 3.0/3.1 (openapi: ${said})`,
    },
  ])
}

/** Whether any `$ref` points outside the document (another file or URL). Iterative: documents nest deep. */
function hasExternalRef(root: unknown): boolean {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return true
      if (typeof value === 'object') stack.push(value)
    }
  }
  return false
}

/** The parser's message without its stack, which names files of the parser itself. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? message
}
