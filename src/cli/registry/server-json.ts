/**
 * A `server.json` (the MCP Registry's description of a server) made from a server definition and its
 * `package.json`, so the two cannot drift apart: name, version, description, the npm package with its
 * transports, and remotes. Each field remembers where it came from, so a refusal can say which file to fix.
 */
import { createHash } from 'node:crypto'
import type { Icon } from '../../wire/types.js'

/** The key the official registry keeps in `_meta` (official-registry-requirements §`_meta` Namespace Restrictions). */
export const PUBLISHER_META_KEY = 'io.modelcontextprotocol.registry/publisher-provided'

/** The official registry keeps at most this much JSON under `PUBLISHER_META_KEY` (same section, "Size limit"). */
export const PUBLISHER_META_MAX_BYTES = 4096

/** A header or environment variable a client supplies (the schema's `KeyValueInput`). */
export interface KeyValueInput {
  name: string
  description?: string
  isRequired?: boolean
  isSecret?: boolean
  value?: string
}

export interface PackageArgument {
  type: 'positional'
  value: string
}

export type LocalTransport =
  { type: 'stdio' } | { type: 'streamable-http'; url: string; headers?: KeyValueInput[] }

export interface RegistryPackage {
  registryType: 'npm'
  identifier: string
  version: string
  transport: LocalTransport
  runtimeHint?: string
  packageArguments?: PackageArgument[]
}

export interface RemoteTransport {
  type: 'streamable-http'
  url: string
  headers?: KeyValueInput[]
}

/** The fields of `server.json` toolwire writes (the schema allows more). */
export interface ServerJson {
  $schema: string
  name: string
  description: string
  version: string
  title?: string
  websiteUrl?: string
  repository?: { url: string; source: string; subfolder?: string; id?: string }
  icons?: Icon[]
  packages?: RegistryPackage[]
  remotes?: RemoteTransport[]
  _meta?: Record<string, Record<string, unknown>>
}

/** The parts of `package.json` that go into `server.json`. */
export interface PackageJson {
  name?: unknown
  version?: unknown
  description?: unknown
  mcpName?: unknown
  homepage?: unknown
  repository?: unknown
}

/** What the server definition says about itself: its info, its card (if it has one) and its tools. */
export interface DefinitionFacts {
  name?: string
  title?: string
  description?: string
  version?: string
  websiteUrl?: string
  icons?: Icon[]
  /** From its server card: the registry name, description, repository, and the endpoint if the card fixes one. */
  card?: {
    name?: string
    description?: string
    repository?: { url: string; source: string; subfolder?: string; id?: string }
    url?: string
    headers?: KeyValueInput[]
  }
  tools?: string[]
}

export interface BuildOptions {
  readonly schemaId: string
  readonly transports: readonly ('stdio' | 'streamable-http')[]
  /** Positional arguments the package's command takes to serve over stdio / over Streamable HTTP. */
  readonly stdioArgs?: readonly string[]
  readonly httpArgs?: readonly string[]
  /** Where the package, once started with `httpArgs`, serves Streamable HTTP. */
  readonly httpUrl?: string
  readonly remotes?: readonly string[]
  readonly headers?: readonly KeyValueInput[]
}

export interface BuiltServerJson {
  readonly document: ServerJson
  /** Field → where its value came from (`package.json mcpName`, `the server card` …). */
  readonly sources: ReadonlyMap<string, string>
  readonly warnings: readonly string[]
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/** `git+https://github.com/o/r.git`, `github:o/r` or `{ url }` → `{ url: https://github.com/o/r, source: github }`. */
export function repositoryOf(
  value: unknown,
): { url: string; source: string; subfolder?: string } | undefined {
  const raw =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null
        ? (value as { url?: unknown }).url
        : undefined
  const directory =
    typeof value === 'object' && value !== null
      ? text((value as { directory?: unknown }).directory)
      : undefined
  if (typeof raw !== 'string') return undefined
  const shorthand = /^(github|gitlab):([\w.-]+\/[\w.-]+)$/.exec(raw)
  // git:// and ssh:// name the same repository as https:// (a URL's scheme cannot be switched to a special one).
  const web = shorthand
    ? `https://${shorthand[1]}.com/${shorthand[2]}`
    : raw.replace(/^git\+/, '').replace(/^(?:git|ssh):\/\//, 'https://')
  let url: URL
  try {
    url = new URL(web)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:') return undefined
  url.username = ''
  url.password = ''
  url.pathname = url.pathname.replace(/\.git$/, '')
  const source = url.hostname.replace(/^www\./, '').replace(/\.(com|org)$/, '')
  return { url: url.href, source, ...(directory && { subfolder: directory }) }
}

/**
 * Builds the document. Identity comes from the definition first (its card, then its info), then
 * `package.json`; the version always comes from `package.json`, since it is what npm publishes and what
 * the registry checks the package against.
 */
export function buildServerJson(
  pkg: PackageJson,
  facts: DefinitionFacts,
  options: BuildOptions,
): BuiltServerJson {
  const sources = new Map<string, string>()
  const warnings: string[] = []
  const pick = (field: string, candidates: readonly [unknown, string][]): string | undefined => {
    for (const [value, source] of candidates) {
      const found = text(value)
      if (found !== undefined) {
        sources.set(field, source)
        return found
      }
    }
    return undefined
  }
  const mcpName = text(pkg.mcpName)
  const cardName = facts.card?.name
  if (mcpName !== undefined && cardName !== undefined && mcpName !== cardName)
    throw new Error(
      `package.json mcpName is ${JSON.stringify(mcpName)} but the server card's name is ${JSON.stringify(cardName)}: the registry needs one name`,
    )
  const name = pick('name', [
    [mcpName, 'package.json mcpName'],
    [cardName, "the server card's name"],
    [facts.name, "the server's name"],
  ])
  if (name === undefined)
    throw new Error('no server name: set "mcpName" in package.json (e.g. io.github.you/server)')
  if (mcpName === undefined)
    warnings.push(
      `package.json has no "mcpName": the registry accepts the npm package only if its package.json says "mcpName": ${JSON.stringify(name)}`,
    )
  const version = pick('version', [[pkg.version, 'package.json version']])
  if (version === undefined) throw new Error('package.json has no "version"')
  if (facts.version !== undefined && facts.version !== version)
    warnings.push(
      `the server says version ${facts.version}, package.json ${version}: server.json takes package.json's`,
    )
  const description = pick('description', [
    [facts.card?.description, "the server card's description"],
    [facts.description, "the server's description"],
    [pkg.description, 'package.json description'],
  ])
  if (description === undefined)
    throw new Error('no description: give the server a description, or package.json a "description"')
  const identifier = text(pkg.name)
  if (identifier === undefined) throw new Error('package.json has no "name"')

  const document: ServerJson = { $schema: options.schemaId, name, description, version }
  const title = pick('title', [[facts.title, "the server's title"]])
  if (title !== undefined) document.title = title
  const websiteUrl = pick('websiteUrl', [
    [facts.websiteUrl, "the server's websiteUrl"],
    [pkg.homepage, 'package.json homepage'],
  ])
  if (websiteUrl !== undefined) document.websiteUrl = websiteUrl
  const repository = facts.card?.repository ?? repositoryOf(pkg.repository)
  if (repository) {
    document.repository = repository
    sources.set(
      'repository',
      facts.card?.repository ? "the server card's repository" : 'package.json repository',
    )
  }
  if (facts.icons?.length) document.icons = facts.icons

  document.packages = options.transports.map((type): RegistryPackage => {
    const args = (type === 'stdio' ? options.stdioArgs : options.httpArgs) ?? []
    const transport: LocalTransport =
      type === 'stdio' ? { type } : { type, url: options.httpUrl ?? 'http://127.0.0.1:3000/mcp' }
    return {
      registryType: 'npm',
      identifier,
      version,
      runtimeHint: 'npx',
      transport,
      ...(args.length > 0 && {
        packageArguments: args.map((value) => ({ type: 'positional' as const, value })),
      }),
    }
  })
  sources.set('packages', 'package.json name and version')

  const headers = options.headers?.length ? [...options.headers] : facts.card?.headers
  const remoteUrls = [...(options.remotes ?? [])]
  if (facts.card?.url !== undefined && !remoteUrls.includes(facts.card.url)) remoteUrls.push(facts.card.url)
  if (remoteUrls.length > 0)
    document.remotes = remoteUrls.map((url) => ({
      type: 'streamable-http',
      url,
      ...(headers?.length && { headers }),
    }))

  if (facts.tools !== undefined) document._meta = { [PUBLISHER_META_KEY]: toolRecord(facts.tools) }
  return { document, sources, warnings }
}

/**
 * The tools, as the official registry will keep them: their names, sorted; past its size limit, their count
 * and a digest of the names instead, which still shows a change.
 */
export function toolRecord(names: readonly string[]): Record<string, unknown> {
  const tools = [...names].sort()
  const record = { tools }
  if (JSON.stringify(record).length <= PUBLISHER_META_MAX_BYTES) return record
  return { toolCount: tools.length, toolsDigest: namesDigest(tools) }
}

/** A SHA-256 of the sorted names: only a change detector that fits in the registry's `_meta`. */
const namesDigest = (sorted: readonly string[]): string =>
  `sha256:${createHash('sha256').update(sorted.join('\n')).digest('hex')}`
