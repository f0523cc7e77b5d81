/**
 * Servers by name from the configuration files people already keep: the project's `.mcp.json`, VS Code's
 * `.vscode/mcp.json` (JSON with comments, `servers`), and Claude Desktop's `claude_desktop_config.json`
 * (`mcpServers`). The first file that names the server wins, in that order.
 */
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseJsonc } from './jsonc.js'
import { UsageError } from './target.js'

export interface ConfiguredServer {
  readonly name: string
  /** The file the definition came from. */
  readonly source: string
  readonly command?: string
  readonly args?: string[]
  readonly env?: Record<string, string>
  readonly url?: string
  readonly headers?: Record<string, string>
}

export interface ConfigPlaces {
  readonly cwd: string
  readonly home: string
  readonly platform: NodeJS.Platform
  readonly appData: string | undefined
}

const defaultPlaces = (): ConfigPlaces => ({
  cwd: process.cwd(),
  home: homedir(),
  platform: process.platform,
  appData: process.env.APPDATA,
})

/** Where Claude Desktop keeps its configuration on each platform. */
function claudeDesktopConfig(places: ConfigPlaces): string {
  if (places.platform === 'darwin') {
    return join(places.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
  }
  if (places.platform === 'win32') {
    return join(
      places.appData ?? join(places.home, 'AppData', 'Roaming'),
      'Claude',
      'claude_desktop_config.json',
    )
  }
  return join(places.home, '.config', 'Claude', 'claude_desktop_config.json')
}

/** The configuration files consulted, in order of precedence. */
export function configFiles(places: ConfigPlaces = defaultPlaces()): string[] {
  return [join(places.cwd, '.mcp.json'), join(places.cwd, '.vscode', 'mcp.json'), claudeDesktopConfig(places)]
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const strings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string')

const stringMap = (value: unknown): value is Record<string, string> =>
  isObject(value) && Object.values(value).every((item) => typeof item === 'string')

/** VS Code's `${env:NAME}` and `${workspaceFolder}`; other variables are left for the server to see. */
function expand(text: string, places: ConfigPlaces): string {
  return text
    .replaceAll('${workspaceFolder}', places.cwd)
    .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => process.env[name] ?? '')
}

function readServers(file: string): Record<string, unknown> {
  let document: unknown
  try {
    document = parseJsonc(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${(error as Error).message})`)
  }
  if (!isObject(document)) throw new UsageError(`${file}: cannot read it (not a JSON object)`)
  const servers = document.mcpServers ?? document.servers
  return isObject(servers) ? servers : {}
}

function toServer(name: string, entry: unknown, source: string, places: ConfigPlaces): ConfiguredServer {
  const bad = (what: string): never => {
    throw new UsageError(`${source}: server ${JSON.stringify(name)} ${what}`)
  }
  if (!isObject(entry)) return bad('is not an object')
  const expandAll = (map: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, places)]))
  if (typeof entry.url === 'string') {
    if (entry.headers !== undefined && !stringMap(entry.headers)) bad('has headers that are not strings')
    return {
      name,
      source,
      url: expand(entry.url, places),
      ...(stringMap(entry.headers) && { headers: expandAll(entry.headers) }),
    }
  }
  if (typeof entry.command !== 'string') return bad('has neither a command nor a url')
  if (entry.args !== undefined && !strings(entry.args)) bad('has args that are not strings')
  if (entry.env !== undefined && !stringMap(entry.env)) bad('has env values that are not strings')
  return {
    name,
    source,
    command: expand(entry.command, places),
    args: strings(entry.args) ? entry.args.map((arg) => expand(arg, places)) : [],
    ...(stringMap(entry.env) && { env: expandAll(entry.env) }),
  }
}

/** The server configured under `name`, or undefined when no file names it. */
export function findConfiguredServer(
  name: string,
  places: ConfigPlaces = defaultPlaces(),
): ConfiguredServer | undefined {
  for (const file of configFiles(places)) {
    if (!existsSync(file)) continue
    const servers = readServers(file)
    if (Object.hasOwn(servers, name)) return toServer(name, servers[name], file, places)
  }
  return undefined
}

/** Every server one file configures (`mcpServers` or `servers`), with its raw entry for extra fields. */
export function serversIn(
  file: string,
  places: ConfigPlaces = defaultPlaces(),
): { server: ConfiguredServer; entry: Record<string, unknown> }[] {
  if (!existsSync(file)) throw new UsageError(`${file}: no such file`)
  return Object.entries(readServers(file)).map(([name, entry]) => ({
    server: toServer(name, entry, file, places),
    entry: isObject(entry) ? entry : {},
  }))
}

/** Every configured server name, for completion and error messages. */
export function configuredNames(places: ConfigPlaces = defaultPlaces()): string[] {
  const names = new Set<string>()
  for (const file of configFiles(places)) {
    if (!existsSync(file)) continue
    try {
      for (const name of Object.keys(readServers(file))) names.add(name)
    } catch {
      // an unreadable file is reported when a server is looked up in it
    }
  }
  return [...names]
}
