/**
 * Telemetry off costs nothing: a server and a client without the option never resolve an @opentelemetry
 * module (watched by `module.register` resolve hooks in a child process running the built package); with it,
 * `@opentelemetry/api` is loaded. Needs `npm run build`.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'

const run = promisify(execFile)

interface Outcome {
  answer: string
  otel: string[]
  resolved: number
  warnings: string[]
}

async function program(mode: 'on' | 'off', env: Record<string, string> = {}): Promise<Outcome> {
  const fixtures = join(ROOT, 'test', 'fixtures')
  const { stdout } = await run(
    process.execPath,
    ['--import', join(fixtures, 'module-watch.mjs'), join(fixtures, 'telemetry-off-program.mjs'), mode],
    { timeout: 60_000, env: { ...process.env, ...env } },
  )
  return JSON.parse(stdout) as Outcome
}

describe('telemetry off', () => {
  it('a server and a client without telemetry load no @opentelemetry module', async () => {
    const off = await program('off')
    expect(off.answer).toBe('3')
    expect(off.resolved).toBeGreaterThan(10) // the watch saw the program's own modules
    expect(off.otel).toEqual([])
  })

  it('with telemetry on, @opentelemetry/api is loaded (the watch sees it)', async () => {
    const on = await program('on')
    expect(on.answer).toBe('3')
    expect(on.otel.some((url) => url.includes('/@opentelemetry/api/'))).toBe(true)
  })

  it('with telemetry on but @opentelemetry/api not installed, requests are served and both sides say why', async () => {
    const missing = await program('on', { MODULE_WATCH_BLOCK: '@opentelemetry/api' })
    expect(missing.answer).toBe('3')
    expect(missing.otel).toEqual([])
    expect(missing.warnings).toHaveLength(2)
    for (const warning of missing.warnings) expect(warning).toMatch(/telemetry is off.*@opentelemetry\/api/)
  })
})
