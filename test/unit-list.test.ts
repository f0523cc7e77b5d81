/** `npm run test:unit` runs what its list names: every listed file exists and starts no child process. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UNIT_TESTS } from '../vitest.unit-files.js'
import { ROOT } from './helpers/paths.js'

describe('the unit test list', () => {
  it('names files that exist, this one included', () => {
    expect(UNIT_TESTS.filter((file) => !existsSync(join(ROOT, file)))).toEqual([])
    expect(UNIT_TESTS).toContain('test/unit-list.test.ts')
  })

  it('holds no test that starts a child process or needs redis, nginx or a build', () => {
    const heavy = /from 'node:child_process'|helpers\/(redis|nginx|stdio|pty)\.js'|\bCLI\b|'\.\.\/dist\//
    const others = UNIT_TESTS.filter((file) => file !== 'test/unit-list.test.ts')
    expect(others.filter((file) => heavy.test(readFileSync(join(ROOT, file), 'utf8')))).toEqual([])
  })
})
