/**
 * Node's built-in modules, taken from `process.getBuiltinModule` (Node >= 20.16) when first needed: nothing
 * under src/wire imports `node:*` at run time, so every entry built on it still loads outside Node.
 */
import type * as NodeDns from 'node:dns'
import type * as NodeFs from 'node:fs/promises'
import type * as NodeHttp from 'node:http'
import type * as NodeHttps from 'node:https'
import type * as NodeNet from 'node:net'
import type * as NodePath from 'node:path'
import type * as NodeUrl from 'node:url'

interface Builtins {
  'node:dns': typeof NodeDns
  'node:fs/promises': typeof NodeFs
  'node:http': typeof NodeHttp
  'node:https': typeof NodeHttps
  'node:net': typeof NodeNet
  'node:path': typeof NodePath
  'node:url': typeof NodeUrl
}

/** The module, or undefined where this is not Node. */
export function nodeBuiltin<K extends keyof Builtins>(id: K): Builtins[K] | undefined {
  const proc = (globalThis as { process?: Partial<NodeJS.Process> }).process
  if (typeof proc?.getBuiltinModule !== 'function') return undefined
  return proc.getBuiltinModule(id) as Builtins[K] | undefined
}
