/**
 * `npm run build` (which `npm test` runs first) leaves the `bin` entry executable, so `npx toolwire …` works
 * inside the repository and an installed package's link runs without `node` in front.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLI, ROOT } from './helpers/paths.js'

const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }

describe('the built CLI', () => {
  it('is executable', () => {
    expect(() => accessSync(CLI, constants.X_OK)).not.toThrow()
  })

  it('runs through npx inside the repository', async () => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'npx',
        ['--offline', 'toolwire', '--version'],
        { cwd: ROOT, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      )
    })
    expect(result.stderr).not.toMatch(/Permission denied/)
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` })
  })
})
