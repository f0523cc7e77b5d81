/**
 * `toolwire registry [module]`: writes `server.json`, the MCP Registry's description of a server, from the
 * server definition (loaded as `toolwire serve` loads it) and `package.json`, checked against the registry's
 * published schema; `--check` fails (exit 1) when the file on disk no longer says what would be written
 * (version, tools), for CI. Exit status: 0 written or up to date, 1 drift, 2 anything refused.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { Server } from '../../server.js'
import { collect } from './openapi.js'
import { forTerminal } from '../terminal-text.js'
import { driftOf } from '../registry/drift.js'
import { loadRegistrySchema } from '../registry/schema.js'
import {
  buildServerJson,
  type DefinitionFacts,
  type KeyValueInput,
  type PackageJson,
} from '../registry/server-json.js'

interface RegistryFlags {
  readonly demo?: boolean
  readonly package: string
  readonly out: string
  readonly check?: boolean
  readonly transport?: readonly string[]
  readonly stdioArg?: readonly string[]
  readonly httpArg?: readonly string[]
  readonly httpUrl?: string
  readonly remote?: readonly string[]
  readonly header?: readonly string[]
  readonly secretHeader?: readonly string[]
}

/** package.json and server.json are small; a larger file is a mistake, not something to read whole. */
export const REGISTRY_MAX_FILE_BYTES = 1024 * 1024

function readJson(path: string, what: string): unknown {
  if (!existsSync(path)) throw new Error(`${path}: no such file (${what})`)
  const size = statSync(path).size
  if (size > REGISTRY_MAX_FILE_BYTES)
    throw new Error(`${path} is ${size} bytes, more than the ${REGISTRY_MAX_FILE_BYTES} a ${what} may have`)
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`${path} is not JSON: ${(error as Error).message}`)
  }
}

/** `--header 'Name'` or `--header 'Name: what it is for'` → a header a client must send. */
export function parseHeaderFlag(line: string, secret: boolean): KeyValueInput {
  const colon = line.indexOf(':')
  const name = (colon === -1 ? line : line.slice(0, colon)).trim()
  const description = colon === -1 ? '' : line.slice(colon + 1).trim()
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new Error(`--header expects 'Name' or 'Name: description', got ${JSON.stringify(line)}`)
  return { name, ...(description && { description }), isRequired: true, ...(secret && { isSecret: true }) }
}

const CARD_PROBE = 'https://toolwire.invalid/mcp'

/** What the definition says about itself, its card (asked as a client would) and its tools. */
function factsOf(server: Server): DefinitionFacts {
  const { info } = server
  const facts: DefinitionFacts = {
    name: info.name,
    version: info.version,
    tools: server.tools.tools().map((tool) => tool.name),
    ...(info.title !== undefined && { title: info.title }),
    ...(info.description !== undefined && { description: info.description }),
    ...(info.websiteUrl !== undefined && { websiteUrl: info.websiteUrl }),
    ...(info.icons !== undefined && { icons: info.icons }),
  }
  const answer = server.serverCard?.document('GET', CARD_PROBE, undefined)
  if (answer?.status === 200) {
    const card = JSON.parse(answer.body) as {
      name?: string
      description?: string
      repository?: { url: string; source: string }
      remotes?: { url: string; headers?: KeyValueInput[] }[]
    }
    const remote = card.remotes?.[0]
    facts.card = {
      ...(card.name !== undefined && { name: card.name }),
      ...(card.description && { description: card.description }),
      ...(card.repository && { repository: card.repository }),
      // The card names the requested URL unless the definition fixes one, which is then a remote to list.
      ...(remote && remote.url !== CARD_PROBE && { url: remote.url }),
      ...(remote?.headers && { headers: remote.headers }),
    }
  }
  return facts
}

async function definition(modulePath: string | undefined, demo: boolean): Promise<Server | undefined> {
  if (demo) {
    if (modulePath !== undefined) throw new Error('give a module or --demo, not both')
    const { createDemoServer } = await import('../../demo/server.js')
    return createDemoServer({ requestStateSecret: randomBytes(32).toString('base64url') })
  }
  if (modulePath === undefined) return undefined
  const { loadServer } = await import('./serve.js')
  return loadServer(modulePath)
}

async function registry(modulePath: string | undefined, flags: RegistryFlags): Promise<number> {
  const transports = flags.transport?.length ? [...new Set(flags.transport)] : ['stdio']
  for (const transport of transports)
    if (transport !== 'stdio' && transport !== 'streamable-http')
      throw new Error(`--transport is stdio or streamable-http, not ${JSON.stringify(transport)}`)
  const pkg = readJson(flags.package, 'package.json') as PackageJson
  if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg))
    throw new Error(`${flags.package} is not a JSON object`)
  const server = await definition(modulePath, flags.demo === true)
  const schema = loadRegistrySchema()
  const headers = [
    ...(flags.header ?? []).map((line) => parseHeaderFlag(line, false)),
    ...(flags.secretHeader ?? []).map((line) => parseHeaderFlag(line, true)),
  ]
  const built = buildServerJson(pkg, server ? factsOf(server) : {}, {
    schemaId: schema.id,
    transports: transports as ('stdio' | 'streamable-http')[],
    // The demo is the toolwire package's `demo` command.
    stdioArgs: flags.stdioArg ?? (flags.demo ? ['demo', '--stdio'] : []),
    httpArgs: flags.httpArg ?? (flags.demo ? ['demo'] : []),
    ...(flags.httpUrl !== undefined && { httpUrl: flags.httpUrl }),
    ...(flags.remote && { remotes: flags.remote }),
    headers,
  })
  for (const warning of built.warnings) console.error(`toolwire registry: warning: ${forTerminal(warning)}`)
  const outcome = schema.validator.validate(built.document)
  if (!outcome.ok) {
    const lines = outcome.issues.map((issue) => {
      const field = /^[^.:\s]+/.exec(issue)?.[0] ?? ''
      const source = built.sources.get(field)
      return `  ${issue}${source ? ` (from ${source})` : ''}`
    })
    throw new Error(
      `the server.json this would write is not valid for the MCP Registry (${schema.id}):\n${lines.join('\n')}`,
    )
  }
  if (flags.check) {
    if (!existsSync(flags.out)) {
      console.error(`toolwire registry: ${flags.out} does not exist: run toolwire registry to write it`)
      return 1
    }
    const drift = driftOf(readJson(flags.out, 'server.json'), built.document)
    if (drift.length > 0) {
      console.error(
        `toolwire registry: ${flags.out} is out of date:\n${drift.map((line) => `  ${forTerminal(line)}`).join('\n')}\nrun toolwire registry to write it again`,
      )
      return 1
    }
    console.log(`${flags.out} is up to date (${built.document.name} ${built.document.version})`)
    return 0
  }
  writeFileSync(flags.out, `${JSON.stringify(built.document, null, 2)}\n`)
  const tools = server ? `, ${server.tools.tools().length} tools recorded` : ''
  console.log(
    `wrote ${flags.out}: ${built.document.name} ${built.document.version} (npm ${forTerminal(String(pkg.name))}: ${transports.join(', ')}${tools})`,
  )
  return 0
}

export function registerRegistry(program: Command): void {
  program
    .command('registry')
    .description(
      "write server.json (the MCP Registry's format) from the server and package.json, or --check it",
    )
    .argument('[module]', 'the module `toolwire serve` would serve (its name, description, card and tools)')
    .option('--demo', 'describe the demo (`toolwire demo`), the toolwire package itself')
    .option('--package <file>', 'the package.json to read', 'package.json')
    .option('--out <file>', 'the server.json to write or check', 'server.json')
    .option('--check', 'write nothing; exit 1, naming the drift, if the file differs in version or tools')
    .option(
      '--transport <type>',
      'stdio (default) or streamable-http; repeatable, one package entry each',
      collect,
    )
    .option(
      '--stdio-arg <value>',
      "an argument the package's command takes to serve over stdio (repeatable)",
      collect,
    )
    .option(
      '--http-arg <value>',
      "an argument the package's command takes to serve over HTTP (repeatable)",
      collect,
    )
    .option(
      '--http-url <url>',
      'where the package serves Streamable HTTP (default http://127.0.0.1:3000/mcp)',
    )
    .option('--remote <url>', 'a hosted Streamable HTTP endpoint (repeatable)', collect)
    .option('--header <line>', "for --remote: 'Name' or 'Name: description', a header clients send", collect)
    .option('--secret-header <line>', 'as --header, for a secret (a token, a key)', collect)
    .action(async (modulePath: string | undefined, flags: RegistryFlags) => {
      const status = await registry(modulePath, flags)
      // A loaded module may hold timers or sockets open; the command is done once its output is out.
      process.stdout.write('', () => process.exit(status))
    })
}
