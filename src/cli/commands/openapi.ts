/**
 * `toolwire openapi <document>`: the tools an OpenAPI document makes, and what `serve --openapi` serves.
 * The OpenAPI module (and its document parser) is loaded inside the action, never at CLI start-up.
 */
import { basename } from 'node:path'
import type { Command } from 'commander'
import type { ToolAnnotations } from '../../wire/types.js'
import type { OpenAPIBuild } from '../../openapi/from-openapi.js'

export interface OpenAPIFlags {
  readonly baseUrl?: string
  readonly header?: readonly string[]
  readonly allowPrivate?: boolean
  readonly allowFilesOutside?: boolean
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
  return openAPITools(document, {
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    headers: parseHeaders(flags.header),
    allowPrivate: flags.allowPrivate === true,
    allowFilesOutside: flags.allowFilesOutside === true,
  })
}

/** The load permissions, for `openapi` and `serve --openapi` alike. */
export function openAPILoadOptions(command: Command, prefix = ''): Command {
  return command
    .option(
      '--allow-private',
      `${prefix}load the document from localhost or a private address (refused by default)`,
    )
    .option(
      '--allow-files-outside',
      `${prefix}let a local document's $refs read files outside its folder (refused by default)`,
    )
}

/** A server for `serve --openapi`: named by the document's title. */
export async function openAPIServer(document: string, flags: OpenAPIFlags) {
  const built = await buildFromFlags(document, flags)
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
