/**
 * `toolwire openapi <document>`: the tools an OpenAPI document makes, and what `serve --openapi` serves.
 * The OpenAPI module (and its document parser) is loaded inside the action, never at CLI start-up.
 */
import { basename } from 'node:path'
import type { Command } from 'commander'
import type { ToolAnnotations } from '../../wire/types.js'
import type { OpenAPIBuild } from '../../openapi/from-openapi.js'
import type { OperationFilter } from '../../openapi/operations.js'

export interface OpenAPIFlags {
  readonly baseUrl?: string
  readonly header?: readonly string[]
  readonly allowPrivate?: boolean
  readonly allowFilesOutside?: boolean
  readonly strict?: boolean
  readonly strictResponses?: boolean
  readonly include?: readonly string[]
  readonly exclude?: readonly string[]
  readonly rename?: readonly string[]
}

const FILTER_KINDS = {
  tag: 'tags',
  path: 'paths',
  operationId: 'operationIds',
  method: 'methods',
} as const

/**
 * `--include`/`--exclude` values (repeatable) → an `OperationFilter`: `tag:NAME`, `path:GLOB` (or a bare
 * `/GLOB`), `operationId:ID`, `method:NAME`. Values of one kind are alternatives; kinds given together
 * must all match, as in the library's filter.
 */
export function parseFilter(
  values: readonly string[] | undefined,
  flag: string,
): OperationFilter | undefined {
  if (values === undefined || values.length === 0) return undefined
  const filter: Record<string, string[]> = {}
  for (const value of values) {
    const colon = value.indexOf(':')
    const kind = value.startsWith('/') ? 'path' : value.slice(0, colon)
    const text = value.startsWith('/') ? value : value.slice(colon + 1)
    const key = Object.hasOwn(FILTER_KINDS, kind)
      ? FILTER_KINDS[kind as keyof typeof FILTER_KINDS]
      : undefined
    if (key === undefined || text === '')
      throw new Error(
        `${flag} expects tag:NAME, path:GLOB, operationId:ID or method:NAME, got ${JSON.stringify(value)}`,
      )
    ;(filter[key] ??= []).push(text)
  }
  return filter
}

/** `--rename old=new` (repeatable; old is an operationId or `"GET /path"`) → the `rename` record. */
export function parseRename(values: readonly string[] = []): Record<string, string> | undefined {
  if (values.length === 0) return undefined
  const rename: Record<string, string> = {}
  for (const value of values) {
    const equals = value.lastIndexOf('=')
    if (equals <= 0 || equals === value.length - 1)
      throw new Error(`--rename expects OLD=NEW, got ${JSON.stringify(value)}`)
    rename[value.slice(0, equals)] = value.slice(equals + 1)
  }
  return rename
}

/** `--header 'Name: value'` (repeatable) → a header record; the value may contain colons. */
export function parseHeaders(lines: readonly string[] = []): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim()
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new Error(`--header expects 'Name: value', got ${JSON.stringify(line)}`)
    headers[name] = line.slice(colon + 1).trim()
  }
  return headers
}

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

/**
 * The document's tools, built with the command line's base URL, headers and load permissions: the one path
 * both `toolwire openapi` and `serve --openapi` read a document by (the document loader's rules).
 */
export async function buildFromFlags(document: string, flags: OpenAPIFlags): Promise<OpenAPIBuild> {
  const { openAPITools } = await import('../../openapi/from-openapi.js')
  const include = parseFilter(flags.include, '--include')
  const exclude = parseFilter(flags.exclude, '--exclude')
  const rename = parseRename(flags.rename)
  return openAPITools(document, {
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    headers: parseHeaders(flags.header),
    allowPrivate: flags.allowPrivate === true,
    allowFilesOutside: flags.allowFilesOutside === true,
    strict: flags.strict === true,
    strictResponses: flags.strictResponses === true,
    ...(include && { include }),
    ...(exclude && { exclude }),
    ...(rename && { rename }),
    // Each command says what was tolerated in its own place (the listing, or stderr).
    onWarning: () => undefined,
  })
}

/** The load permissions and tolerance, selection and naming flags, for `openapi` and `serve --openapi` alike. */
export function openAPILoadOptions(command: Command, prefix = ''): Command {
  return command
    .option('--strict', `${prefix}refuse the document if any operation cannot become a tool`)
    .option(
      '--strict-responses',
      `${prefix}publish the documented output schemas; an answer that does not match one is a tool error`,
    )
    .option('--include <filter>', `${prefix}only tag:NAME, path:GLOB, operationId:ID (repeatable)`, collect)
    .option(
      '--exclude <filter>',
      `${prefix}leave out tag:NAME, path:GLOB, operationId:ID (repeatable)`,
      collect,
    )
    .option(
      '--rename <old=new>',
      `${prefix}name a tool (old: an operationId or "GET /path"; repeatable)`,
      collect,
    )
    .option(
      '--allow-private',
      `${prefix}load the document from localhost or a private address (refused by default)`,
    )
    .option(
      '--allow-files-outside',
      `${prefix}let a local document's $refs read files outside its folder (refused by default)`,
    )
}

/** What a build tolerated, one line each: `GET /x (id): skipped: reason`. */
export function warningLines(built: OpenAPIBuild): string[] {
  return built.warnings.map(
    (warning) => `${warning.operation}: ${warning.skipped ? 'skipped: ' : ''}${warning.reason}`,
  )
}

/** A server for `serve --openapi`: named by the document's title; what was tolerated goes to stderr. */
export async function openAPIServer(document: string, flags: OpenAPIFlags) {
  const built = await buildFromFlags(document, flags)
  for (const line of warningLines(built)) console.error(`toolwire openapi: ${line}`)
  const { defineServer } = await import('../../server.js')
  return defineServer({
    name: built.title ?? basename(document),
    version: built.version ?? '0.0.0',
    tools: built.tools.map((entry) => entry.tool),
  })
}

function hints(annotations: ToolAnnotations | undefined): string {
  if (annotations?.readOnlyHint) return 'read-only'
  if (annotations?.destructiveHint) return 'destructive'
  if (annotations?.idempotentHint) return 'idempotent'
  return ''
}

function printTools(built: OpenAPIBuild, json: boolean): void {
  if (json) {
    const tools = built.tools.map(({ tool, method, path }) => {
      const { handler: _handler, ...config } = tool.config
      return { ...config, _operation: `${method.toUpperCase()} ${path}` }
    })
    console.log(JSON.stringify(tools, null, 2))
    // The JSON is the tools alone: what was tolerated goes to stderr.
    for (const line of warningLines(built)) console.error(`toolwire openapi: ${line}`)
    return
  }
  const rows = built.tools.map(({ tool, method, path }) => [
    tool.config.name,
    `${method.toUpperCase()} ${path}`,
    hints(tool.config.annotations),
    tool.config.title ?? '',
  ])
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => (row[column] as string).length)))
  for (const row of rows)
    console.log(
      row
        .map((cell, column) => (column < 3 ? cell.padEnd(widths[column] ?? 0) : cell))
        .join('  ')
        .trimEnd(),
    )
  const target = built.baseUrl === undefined ? '' : `, calling ${built.baseUrl}`
  console.log(`\n${built.tools.length} tools from ${built.title ?? 'the document'}${target}`)
  const lines = warningLines(built)
  if (lines.length === 0) return
  const skipped = built.skipped.length
  console.log(
    `${skipped} operation${skipped === 1 ? '' : 's'} skipped (--strict refuses the document instead)${lines.length > skipped ? ', some named otherwise' : ''}:`,
  )
  for (const line of lines) console.log(`  ${line}`)
}

export function registerOpenAPI(program: Command): void {
  const command = program
    .command('openapi')
    .description('print the MCP tools an OpenAPI document (3.0, 3.1, Swagger 2.0) makes, one per operation')
    .argument('<document>', 'a file (JSON or YAML) or an http(s) URL')
    .option('--base-url <url>', "where calls go (default: the document's servers)")
    .option('--header <line>', "'Name: value' sent with every call (repeatable)", collect)
  openAPILoadOptions(command)
    .option('--json', 'the tool definitions as JSON')
    .action(async (document: string, flags: OpenAPIFlags & { json?: boolean }) => {
      printTools(await buildFromFlags(document, flags), flags.json === true)
    })
}
