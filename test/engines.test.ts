/**
 * `engines` tells the truth: every package an install of toolwire brings along (its dependencies, and
 * theirs) accepts every Node version toolwire's own `engines` accepts. Otherwise `npm install toolwire` warns
 * on a Node version we claim, or the dependency breaks there.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import semver from 'semver'
import { describe, expect, it } from 'vitest'

interface Manifest {
  readonly name: string
  readonly version: string
  readonly engines?: { readonly node?: string }
  readonly dependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
}

const root = fileURLToPath(new URL('..', import.meta.url))
const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest

/** Node's lookup: `node_modules/<name>` in the package's folder, then in each folder above it. */
function installed(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return undefined
  }
}

/** Every installed runtime dependency, direct or not, once each. */
function runtimeDependencies(): Manifest[] {
  const seen = new Map<string, Manifest>()
  const visit = (dir: string, manifest: Manifest, optional: ReadonlySet<string>): void => {
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const file = installed(name, dir)
      if (!file) {
        // An optional dependency for another platform is not installed here; a required one must be.
        expect(optional.has(name), `${name} (needed by ${manifest.name}) is not installed`).toBe(true)
        continue
      }
      if (seen.has(file)) continue
      const dependency = read(file)
      seen.set(file, dependency)
      visit(dirname(file), dependency, new Set(Object.keys(dependency.optionalDependencies ?? {})))
    }
  }
  const own = read(join(root, 'package.json'))
  visit(root, own, new Set(Object.keys(own.optionalDependencies ?? {})))
  return [...seen.values()]
}

describe('engines', () => {
  const ours = read(join(root, 'package.json')).engines?.node
  it('names the Node versions toolwire supports', () => {
    expect(ours).toBeDefined()
    expect(semver.validRange(ours)).not.toBeNull()
  })

  it('every runtime dependency accepts every Node version toolwire accepts', () => {
    const dependencies = runtimeDependencies()
    expect(dependencies.map((d) => d.name)).toContain('eventsource-parser')
    const refusing = dependencies
      .filter((d) => d.engines?.node !== undefined && !semver.subset(ours as string, d.engines.node))
      .map((d) => `${d.name}@${d.version} wants node ${d.engines?.node}`)
    expect(refusing).toEqual([])
  })
})
