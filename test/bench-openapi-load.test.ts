/**
 * `npm run bench:openapi` itself works: run on the small Petstore document with `--quick`, it loads it in a
 * child process through `dist/` and prints (and writes) a table row with the tool count the corpus test
 * asserts. Nothing here is timed: the bench's figures are not asserted. Starts processes and reads `dist/`,
 * so it is not in the unit list.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DOCUMENTS, parseArgs } from '../bench/openapi-load.js'
import { ROOT } from './helpers/paths.js'

const run = (args: readonly string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/openapi-load.ts', ...args],
      { cwd: ROOT, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })

const scratch = mkdtempSync(join(tmpdir(), 'toolwire-bench-openapi-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('bench:openapi', () => {
  it('loads Petstore once with --quick and prints and writes its row with the 20 tools', async () => {
    const petstore = DOCUMENTS.find((document) => document.key === 'petstore')
    expect(petstore?.tools).toBe(20) // as test/openapi-corpus.test.ts asserts
    const result = await run(['--quick', '--documents=petstore', `--results-dir=${scratch}`])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const row = result.stdout.split('\n').find((line) => line.startsWith(`| ${petstore?.label} |`))
    expect(row).toBeDefined()
    // Document, tools, runs: the figures after them are timings and memory, not asserted.
    expect(
      row
        ?.split('|')
        .slice(2, 4)
        .map((cell) => cell.trim()),
    ).toEqual(['20', '1'])
    const written = readdirSync(scratch).filter((file) => /^bench-openapi-load-.+\.md$/.test(file))
    expect(written).toHaveLength(1)
    expect(readFileSync(join(scratch, written[0] as string), 'utf8')).toContain(row)
  }, 120_000)

  it('refuses unknown options, documents and run counts', () => {
    expect(parseArgs([]).documents.map((document) => document.key)).toEqual(['github', 'figma', 'netlify'])
    expect(parseArgs([]).runs).toBe(5)
    expect(parseArgs(['--quick']).runs).toBe(1)
    expect(() => parseArgs(['--fast'])).toThrow(/unknown option --fast/)
    expect(() => parseArgs(['--runs=0'])).toThrow(/positive integer/)
    expect(() => parseArgs(['--documents=stripe'])).toThrow(/no document stripe/)
  })
})
