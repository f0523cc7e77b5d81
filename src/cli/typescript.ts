/**
 * How the CLI runs a TypeScript server module (`toolwire serve server.ts`, `toolwire dev ./server.ts`).
 *
 * Node runs TypeScript by itself only from 22.18 and 23.6 (type stripping on by default; 22.6 to 22.17 and
 * 23.0 to 23.5 behind `--experimental-strip-types`), and type stripping leaves `./tool.js` imports of
 * `tool.ts` unresolved. tsx handles both, so it is preferred: when the user's project has it (resolved from
 * the working directory, then from the module's folder), it is registered for them. Otherwise the answer is
 * one line saying what to install, not the loader's stack.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** What this Node can do with a TypeScript module on its own. */
export type NativeTypeScript = 'on' | 'behind-flag' | 'none'

const TYPESCRIPT = /\.[cm]?tsx?$/

export const isTypeScript = (file: string): boolean => TYPESCRIPT.test(file)

/** Whether this process strips types already, could with `--experimental-strip-types`, or cannot. */
export function nativeTypeScript(): NativeTypeScript {
  // process.features.typescript: 'strip' or 'transform' when on (Node 22.10+, 23.0+); absent before.
  const feature = (process.features as { typescript?: string | false }).typescript
  if (feature) return 'on'
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  return major > 22 || (major === 22 && minor >= 6) ? 'behind-flag' : 'none'
}

/** Where `tsx` resolves from the first of these folders that has it, or undefined. */
export function findTsx(folders: readonly string[]): { entry: string; folder: string } | undefined {
  for (const folder of folders) {
    try {
      return { entry: createRequire(join(folder, 'noop.js')).resolve('tsx'), folder }
    } catch {
      // not installed there
    }
  }
  return undefined
}

/** Whether tsx is loaded into this process already (`--import tsx` in NODE_OPTIONS or the arguments). */
const tsxLoaded = (): boolean =>
  [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => /\btsx\b/.test(arg))

/** The one line that says how to run a TypeScript module this Node cannot run as it is. */
export function typeScriptAdvice(modulePath: string, native: NativeTypeScript): string {
  const flag =
    native === 'behind-flag'
      ? `, or run with NODE_OPTIONS=--experimental-strip-types (Node ${process.versions.node})`
      : `, or use Node 22.18+ (this is ${process.versions.node})`
  return `${modulePath} is TypeScript: install tsx in your project (npm install -D tsx) and toolwire loads it${flag}`
}

/**
 * Makes this process able to import the TypeScript module `file`: registers the project's tsx unless it is
 * loaded already or the module is JavaScript; fails with one line when neither tsx nor Node can run it.
 */
export async function prepareTypeScript(modulePath: string, file: string): Promise<void> {
  if (!isTypeScript(file) || tsxLoaded()) return
  const tsx = findTsx([process.cwd(), dirname(file)])
  if (tsx) {
    // tsx's main entry is what `--import tsx` loads: it registers its ESM and CommonJS hooks.
    await import(pathToFileURL(tsx.entry).href)
    return
  }
  const native = nativeTypeScript()
  if (native !== 'on') throw new Error(typeScriptAdvice(modulePath, native))
}

/**
 * Says in one line why a TypeScript module failed to import, when the cause is how it is run: Node's type
 * stripping does not map `./x.js` to `x.ts`, and some syntax (enums, parameter properties) needs tsx.
 */
export function typeScriptLoadFailure(modulePath: string, error: unknown): Error | undefined {
  if (!isTypeScript(modulePath) || tsxLoaded()) return undefined
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
  const missing = /Cannot find module '([^']+)\.([cm]?)js'/.exec(message ?? '')
  const typeScriptSibling = missing !== null && existsSync(`${missing[1]}.${missing[2]}ts`)
  if (
    (code === 'ERR_MODULE_NOT_FOUND' && typeScriptSibling) ||
    code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX'
  ) {
    return new Error(
      `${modulePath} failed to load with Node's type stripping (${message}): install tsx in your project (npm install -D tsx) and toolwire loads it`,
    )
  }
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION')
    return new Error(typeScriptAdvice(modulePath, nativeTypeScript()))
  return undefined
}
