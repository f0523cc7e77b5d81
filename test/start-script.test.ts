/** `npm start` builds `dist/` only when it is missing or older than its inputs (scripts/start.mjs). */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error plain .mjs script without declarations
import { needsBuild as needsBuildUntyped } from '../scripts/start.mjs'

const needsBuild = needsBuildUntyped as (root: string) => boolean
const root = mkdtempSync(join(tmpdir(), 'toolwire-start-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Writes `file` under the fake repository with the given modification time (seconds since the epoch). */
function touch(file: string, seconds: number): void {
  const path = join(root, file)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, '')
  utimesSync(path, seconds, seconds)
}

describe('npm start', () => {
  it('builds a repository that has no dist/ yet', () => {
    touch('package.json', 1_000)
    touch('src/cli/main.ts', 1_000)
    expect(needsBuild(root)).toBe(true)
  })

  it('does not rebuild a dist/ newer than every input', () => {
    touch('dist/cli/main.js', 2_000)
    expect(needsBuild(root)).toBe(false)
  })

  it('rebuilds after a source file, the build script or the package manifest changes', () => {
    touch('src/deep/er/file.ts', 3_000)
    expect(needsBuild(root)).toBe(true)
    touch('dist/cli/main.js', 4_000)
    expect(needsBuild(root)).toBe(false)
    touch('scripts/build.mjs', 5_000)
    expect(needsBuild(root)).toBe(true)
    touch('dist/cli/main.js', 6_000)
    touch('package.json', 7_000)
    expect(needsBuild(root)).toBe(true)
  })
})
