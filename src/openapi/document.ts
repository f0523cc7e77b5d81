/**
 * Reading an OpenAPI document: a parsed object, a file (JSON or YAML) or an http(s) URL, with every `$ref`
 * into another file or URL brought into the one document by @apidevtools/swagger-parser's `bundle` (local
 * `$ref`s stay, so recursive schemas stay finite). Swagger 2.0, OpenAPI 3.0 and 3.1 are told apart here.
 *
 * The parser reads nothing itself: its own file and http resolvers are off, and the one resolver it has
 * goes through the document loader (wire/document-loader.ts), which confines a document to its origin,
 * judges every address after DNS and bounds size, count and time. The document itself is read the same way.
 */
import { resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { DocumentLoader, type LoadPolicy } from '../wire/document-loader.js'
import { swaggerParser } from './parser.js'
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

export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The parser's YAML plugin, on the `yaml` package instead of js-yaml: a few hundred bytes of anchors and
 * aliases (`&a [*a, *a]`, nested) make a tree with 2^40 paths, and the parser's `$ref` crawl walks every
 * path. `yaml` refuses a document with more than 100 aliases (its default `maxAliasCount`); the core schema
 * (YAML 1.2) reads scalars as js-yaml's JSON schema did. JSON files keep the parser's JSON plugin.
 */
const YAML_PARSER = {
  order: 200,
  allowEmpty: true,
  canParse: ['.yaml', '.yml', '.json'], // JSON is YAML: tried when the JSON plugin fails
  parse: (file: { data: unknown }): unknown => {
    const data = file.data
    if (Buffer.isBuffer(data)) return parseYaml(data.toString(), { schema: 'core' })
    return typeof data === 'string' ? parseYaml(data, { schema: 'core' }) : data
  },
}

export async function loadDocument(
  source: string | URL | object,
  policy: LoadPolicy = {},
): Promise<LoadedDocument> {
  const SwaggerParser = await swaggerParser()
  const { root, path } = rootOf(source)
  const loader = new DocumentLoader(root, policy)
  // canRead for every URL: what the loader does not allow, it refuses, so nothing falls to another resolver.
  // The parser's text parsers take a Buffer (a plain Uint8Array would be parsed as an object).
  const read = async (file: { url: string }): Promise<Buffer> => {
    const bytes = await loader.read(file.url)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  const options = {
    resolve: { file: false, http: false, loader: { order: 1, canRead: true, read } },
    parse: { yaml: YAML_PARSER },
  }
  // The parser's typings cannot say "a path, then an object": one signature, for both calls.
  type Run = (path: string, ...rest: object[]) => Promise<unknown>
  // The parser works on the object it is given: a caller's object is copied for each pass, never changed.
  const parse = (bundle: boolean): Promise<unknown> => {
    const run = (bundle ? SwaggerParser.bundle : SwaggerParser.parse) as unknown as Run
    return typeof source === 'string' || source instanceof URL
      ? run(path, options)
      : run(path, structuredClone(source), options)
  }
  let bundled: unknown
  try {
    bundled = await parse(false)
    // Bundling walks every $ref of the document (seconds for one of 10 MB); only references into other
    // files need it, local ones are followed where they are used (schema.ts). The loader has the document
    // already: bundling reads it from there.
    if (hasExternalRef(bundled)) bundled = await parse(true)
  } catch (error) {
    // The parser wraps a resolver's error in its own ("Error reading file …"): the loader's says why.
    const cause = loader.failure ?? error
    throw new OpenAPIError([{ operation: 'document', reason: reasonOf(cause) }], { cause })
  }
  if (!isNode(bundled)) throw new OpenAPIError([{ operation: 'document', reason: 'is not an object' }])
  const url = root.protocol === 'file:' ? undefined : root
  return { document: bundled, version: versionOf(bundled), url }
}

/**
 * The document's URL for the loader, and the path the parser is given: an http(s) URL as it is; a file as
 * its absolute path (the parser's own way of naming files); an object as the current folder, which its
 * relative `$ref`s are resolved against.
 */
function rootOf(source: string | URL | object): { root: URL; path: string } {
  const refuse = (reason: string): never => {
    throw new OpenAPIError([{ operation: 'document', reason }])
  }
  if (typeof source !== 'string' && !(source instanceof URL)) {
    const folder = process.cwd() + (process.cwd().endsWith(sep) ? '' : sep)
    return { root: pathToFileURL(folder), path: folder }
  }
  const text = source instanceof URL ? source.href : source
  if (/^https?:/i.test(text)) {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return refuse(`${JSON.stringify(text)} is not a valid URL`)
    }
    return { root: url, path: url.href }
  }
  let path = text
  if (/^file:/i.test(text)) {
    try {
      path = fileURLToPath(text)
    } catch {
      return refuse(`${JSON.stringify(text)} is not a valid file URL`)
    }
  } else if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(text)) {
    return refuse(`${JSON.stringify(text)} is neither a file nor an http(s) URL`)
  }
  const absolute = resolve(path)
  return { root: pathToFileURL(absolute), path: absolute }
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

/**
 * Whether any `$ref` points outside the document (another file or URL). Iterative: documents nest deep. Each
 * object is looked at once: YAML anchors make one object appear under many keys, and a document of a few
 * hundred bytes can hold 2^40 paths to it.
 */
function hasExternalRef(root: unknown): boolean {
  const stack: unknown[] = [root]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
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

/** The message's first line: the parser's messages go on with its stack, which names files of the parser. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? message
}
