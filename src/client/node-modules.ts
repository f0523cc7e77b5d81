/**
 * Node's built-in modules for the client, taken from `process.getBuiltinModule` (Node >= 20.16) only when
 * running on Node: nothing is imported from `node:*` statically, so `toolwire/client` still loads in
 * browsers and edge runtimes.
 */
import type * as NodeDns from 'node:dns'
import type * as NodeHttp from 'node:http'
import type * as NodeHttps from 'node:https'
import type * as NodeNet from 'node:net'

export interface NodeModules {
  http: typeof NodeHttp
  https: typeof NodeHttps
  dns: typeof NodeDns
  net: typeof NodeNet
}

/** The modules, when this is Node itself (Bun, Deno and workerd emulate node:http over their own fetch). */
export function nodeModules(): NodeModules | undefined {
  const proc = (globalThis as { process?: Partial<NodeJS.Process> }).process
  if (typeof proc?.getBuiltinModule !== 'function' || typeof proc.versions?.node !== 'string')
    return undefined
  if ('bun' in proc.versions || 'deno' in proc.versions) return undefined
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent
  if (typeof agent === 'string' && !agent.startsWith('Node.js')) return undefined
  return {
    http: proc.getBuiltinModule('node:http'),
    https: proc.getBuiltinModule('node:https'),
    dns: proc.getBuiltinModule('node:dns'),
    net: proc.getBuiltinModule('node:net'),
  }
}

/** The host names' addresses as DNS answers them here, or undefined where this is not Node. */
export async function resolveHost(hostname: string): Promise<string[] | undefined> {
  const modules = nodeModules()
  if (!modules) return undefined
  const answers = await modules.dns.promises.lookup(hostname, { all: true })
  return answers.map(({ address }) => address)
}
